/**
 * Why Python's json module refuses a body, in its own words: DRF answers a malformed JSON body
 * with `JSON parse error - <Python's message>`, and clients show that text. Only bodies that
 * JSON.parse refused (or that Python refuses and JavaScript does not: a byte-order mark, NaN)
 * come here; the scanner follows CPython's C scanner (Modules/_json.c) and json.decoder, with
 * positions counted in code points as Python counts them.
 */

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

class Refusal extends Error {
  readonly reason: string;
  readonly position: number;
  constructor(reason: string, position: number) {
    super(reason);
    this.reason = reason;
    this.position = position;
  }
}

/** JSONDecodeError's text: `<reason>: line L column C (char P)`. */
function located(reason: string, text: readonly string[], position: number): string {
  const before = text.slice(0, position);
  const line = before.filter((char) => char === '\n').length + 1;
  const column = position - before.lastIndexOf('\n');
  return `${reason}: line ${line} column ${column} (char ${position})`;
}

class Scanner {
  private readonly text: readonly string[];
  constructor(text: readonly string[]) {
    this.text = text;
  }

  private skip(index: number): number {
    while (index < this.text.length && WHITESPACE.has(this.text[index])) index++;
    return index;
  }

  private startsWith(word: string, index: number): boolean {
    return this.text.slice(index, index + word.length).join('') === word;
  }

  /** The index after the value at `index`; "Expecting value" where none starts. */
  value(index: number): number {
    const char = this.text[index];
    if (char === '"') return this.string(index + 1);
    if (char === '{') return this.object(index + 1);
    if (char === '[') return this.array(index + 1);
    for (const word of ['null', 'true', 'false']) if (this.startsWith(word, index)) return index + word.length;
    for (const constant of ['NaN', 'Infinity', '-Infinity']) {
      // DRF's strict_constant: Python reads them, DRF refuses them.
      if (this.startsWith(constant, index)) throw new Error(`Out of range float values are not JSON compliant: '${constant}'`);
    }
    return this.number(index);
  }

  private number(start: number): number {
    let index = start;
    const digit = (at: number) => at < this.text.length && this.text[at] >= '0' && this.text[at] <= '9';
    if (this.text[index] === '-') index++;
    if (index < this.text.length && this.text[index] >= '1' && this.text[index] <= '9') {
      while (digit(index)) index++;
    } else if (this.text[index] === '0') index++;
    else throw new Refusal('Expecting value', start);
    if (this.text[index] === '.' && digit(index + 1)) {
      index += 2;
      while (digit(index)) index++;
    }
    if (this.text[index] === 'e' || this.text[index] === 'E') {
      let exponent = index + 1;
      if (this.text[exponent] === '+' || this.text[exponent] === '-') exponent++;
      if (digit(exponent)) {
        while (digit(exponent)) exponent++;
        index = exponent;
      }
    }
    return index;
  }

  private string(start: number): number {
    const begin = start - 1;
    let index = start;
    for (;;) {
      while (index < this.text.length && this.text[index] !== '"' && this.text[index] !== '\\') {
        if (this.text[index].codePointAt(0)! <= 0x1f) throw new Refusal('Invalid control character at', index);
        index++;
      }
      if (index >= this.text.length) throw new Refusal('Unterminated string starting at', begin);
      if (this.text[index] === '"') return index + 1;
      index++;
      if (index === this.text.length) throw new Refusal('Unterminated string starting at', begin);
      if (this.text[index] !== 'u') {
        if (!'"\\/bfnrt'.includes(this.text[index])) throw new Refusal('Invalid \\escape', index - 1);
        index++;
        continue;
      }
      const end = index + 5;
      if (end >= this.text.length) throw new Refusal('Invalid \\uXXXX escape', index);
      if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(index + 1, end).join(''))) throw new Refusal('Invalid \\uXXXX escape', index);
      index = end;
    }
  }

  private object(start: number): number {
    let index = this.skip(start);
    if (this.text[index] === '}') return index + 1;
    for (;;) {
      if (this.text[index] !== '"') throw new Refusal('Expecting property name enclosed in double quotes', index);
      index = this.skip(this.string(index + 1));
      if (this.text[index] !== ':') throw new Refusal("Expecting ':' delimiter", index);
      index = this.skip(this.value(this.skip(index + 1)));
      if (this.text[index] === '}') return index + 1;
      if (this.text[index] !== ',') throw new Refusal("Expecting ',' delimiter", index);
      index = this.skip(index + 1);
    }
  }

  private array(start: number): number {
    let index = this.skip(start);
    if (this.text[index] === ']') return index + 1;
    for (;;) {
      if (index >= this.text.length) throw new Refusal('Expecting value', index);
      index = this.skip(this.value(index));
      if (this.text[index] === ']') return index + 1;
      if (this.text[index] !== ',') throw new Refusal("Expecting ',' delimiter", index);
      index = this.skip(index + 1);
    }
  }

  /** json.loads: one value, then only whitespace. */
  document(): void {
    if (this.text[0] === '\uFEFF') throw new Refusal('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    const start = this.skip(0);
    if (start >= this.text.length) throw new Refusal('Expecting value', start);
    const end = this.skip(this.value(start));
    if (end !== this.text.length) throw new Refusal('Extra data', end);
  }
}

/** Python's message for a body it cannot read as JSON, or null when Python reads it too. */
export function pythonJsonError(body: string): string | null {
  const text = Array.from(body);
  try {
    new Scanner(text).document();
    return null;
  } catch (error) {
    if (error instanceof Refusal) return located(error.reason, text, error.position);
    return (error as Error).message;
  }
}

/** Python's UnicodeDecodeError text for bytes that are not UTF-8, or null when they are. */
export function pythonDecodeError(bytes: Uint8Array): string | null {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return null;
  } catch {
    const position = firstInvalidByte(bytes);
    const hex = bytes[position].toString(16).padStart(2, '0');
    return `'utf-8' codec can't decode byte 0x${hex} in position ${position}: ${utf8Reason(bytes, position)}`;
  }
}

/** How long a sequence its lead byte announces (0: not a lead byte). */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

function firstInvalidByte(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const length = sequenceLength(bytes[index]);
    if (length === 0) return index;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(index, index + length));
    } catch {
      return index;
    }
    index += length;
  }
  return index;
}

function utf8Reason(bytes: Uint8Array, position: number): string {
  const length = sequenceLength(bytes[position]);
  if (length === 0) return 'invalid start byte';
  return position + length > bytes.length ? 'unexpected end of data' : 'invalid continuation byte';
}
