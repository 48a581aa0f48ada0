import { JOB_MESSAGE_MAX_CHARS, boundJobMessage } from './job-message';

describe('boundJobMessage', () => {
  it('keeps a message within the bound as it is', () => {
    const message = 'x'.repeat(JOB_MESSAGE_MAX_CHARS);
    expect(boundJobMessage(message)).toBe(message);
  });

  it('cuts a longer one to the bound, with a marker saying how long it was', () => {
    const bounded = boundJobMessage('Unknown column(s): ' + 'a, '.repeat(5000));
    expect(Array.from(bounded)).toHaveLength(JOB_MESSAGE_MAX_CHARS);
    expect(bounded).toMatch(/^Unknown column\(s\): a, a, /);
    expect(bounded).toMatch(/ … \[truncated: 15019 characters in all\]$/);
  });

  it('counts characters and never splits a surrogate pair', () => {
    const bounded = boundJobMessage('𝔊'.repeat(3000));
    expect(Array.from(bounded)).toHaveLength(JOB_MESSAGE_MAX_CHARS);
    expect(bounded).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(bounded).toMatch(/truncated: 3000 characters in all/);
  });
});
