// File names for saved stock items and join paths: no database.
import { describe, expect, it } from 'vitest';
import { filenameOf, joinPath, JOIN_TOKEN_PATTERN } from '../../src/modules/stock-lists/stock-lists.service.js';

describe('stock items', () => {
  it('names a saved file after the last path segment of its URL, else stock-<id>', () => {
    expect(filenameOf('https://images.example.com/photos/alpine-lake.jpg?w=1200', 7)).toBe('alpine-lake.jpg');
    expect(filenameOf('https://images.example.com/photos/caf%C3%A9%20noir.png', 7)).toBe('café noir.png');
    expect(filenameOf('https://images.example.com/', 7)).toBe('stock-7');
    expect(filenameOf('https://images.example.com/a/%2F..%5C', 8)).toBe('stock-8');
    expect(filenameOf('https://images.example.com/bad%E0%A4%A', 9)).toBe('stock-9');
    expect(filenameOf('https://images.example.com/%07bell%0A.jpg', 10)).toBe('bell.jpg');
    expect(filenameOf(`https://x.example/${'n'.repeat(300)}.jpg`, 1)).toHaveLength(200);
  });

  it('join paths and tokens', () => {
    expect(joinPath('tok')).toBe('/api/community/lists/join/tok');
    expect(JOIN_TOKEN_PATTERN.test('a'.repeat(32))).toBe(true);
    expect(JOIN_TOKEN_PATTERN.test('a b')).toBe(false);
  });
});
