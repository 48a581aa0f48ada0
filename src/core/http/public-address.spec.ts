import type { Request } from 'express';
import { publicBaseUrl } from './public-address';

const request = (protocol: string, host: string) => ({ protocol, host }) as Request;

describe('publicBaseUrl', () => {
  it('is PUBLIC_URL whenever it is set, whatever the request says', () => {
    expect(publicBaseUrl('https://registry.example.org', request('http', 'evil.example'))).toBe(
      'https://registry.example.org',
    );
    expect(publicBaseUrl('https://registry.example.org/', undefined)).toBe('https://registry.example.org');
  });

  it('falls back to the origin of the request when PUBLIC_URL is unset', () => {
    expect(publicBaseUrl(null, request('http', 'localhost:3000'))).toBe('http://localhost:3000');
  });

  it('refuses to guess without a request', () => {
    expect(() => publicBaseUrl(null)).toThrow('PUBLIC_URL is not set');
  });
});
