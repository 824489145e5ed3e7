/** fast-check generators of what a hostile caller sends: text, values and JSON no well-behaved client would. */
import fc from 'fast-check';

/** One UTF-16 code unit or code point, weighted toward the troublesome ones. */
const hostileChar = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('a', 'Z', '0', ' ', 'é', 'Я', '中', '😀', ',', '"', "'", '\\', '&', '<', '>', ';', '%', '_', '=', '+', '-', '@', '#', '?', '/', ':', '.', '\t') },
  { weight: 2, arbitrary: fc.constantFrom('\n', '\r', '\r\n', '\u0000', '\u0001', '\u001f', '\u007f', '\u2028', '\uFEFF', '\uFFFE', '\uFFFF') },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x10ffff }).map((point) => (point >= 0xd800 && point <= 0xdfff ? 'x' : String.fromCodePoint(point))) },
);

/** Text with control characters, lone surrogates, quotes, delimiters and line breaks of every kind. */
export const hostileText = (maxLength = 40): fc.Arbitrary<string> => fc.array(hostileChar, { maxLength }).map((chars) => chars.join(''));

/** What a JSON body may hold: every kind of value, nesting included. */
export const jsonValue = (maxDepth = 3): fc.Arbitrary<unknown> =>
  fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth },
      fc.constant(null), fc.boolean(), fc.integer(), fc.double(), hostileText(),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(hostileText(8), tie('value'), { maxKeys: 4 }),
    ),
  })).value;
