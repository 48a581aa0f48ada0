import { preferenceFor } from './notifications.service';

describe('notification preferences', () => {
  it('uses the channel the user chose for the kind', () => {
    expect(preferenceFor({ batch_feedback: 'email' }, 'batch_feedback')).toBe('email');
    expect(preferenceFor({ batch_feedback: 'none' }, 'batch_feedback')).toBe('none');
    expect(preferenceFor({ batch_feedback: 'in_app' }, 'batch_feedback')).toBe('in_app');
  });

  it('defaults to in-app when nothing or something unknown was chosen', () => {
    expect(preferenceFor({}, 'batch_feedback')).toBe('in_app');
    expect(preferenceFor(null, 'batch_feedback')).toBe('in_app');
    expect(preferenceFor({ batch_feedback: 'sms' }, 'batch_feedback')).toBe('in_app');
    expect(preferenceFor({ batch_feedback: true }, 'batch_feedback')).toBe('in_app');
  });
});
