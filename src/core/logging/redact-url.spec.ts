import { redactUrl } from './redact-url';

describe('redactUrl', () => {
  it.each([
    ['/api/samples/?q=rock&page=2', '/api/samples/?q=rock&page=2'],
    ['/api/x/?token=abc.def&q=1', '/api/x/?token=[redacted]&q=1'],
    [
      '/api/x/?access=a&refresh=b&password=c&api_key=d',
      '/api/x/?access=[redacted]&refresh=[redacted]&password=[redacted]&api_key=[redacted]',
    ],
    ['/api/x/?Access_Token=a', '/api/x/?Access_Token=[redacted]'],
    ['/api/x/?%74oken=a', '/api/x/?%74oken=[redacted]'],
    ['/api/x/?bad=%E0%A4%A&token=x', '/api/x/?bad=%E0%A4%A&token=[redacted]'],
    ['/api/x/?token', '/api/x/?token'],
    ['/api/x/', '/api/x/'],
  ])('%s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});
