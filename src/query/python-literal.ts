/**
 * A parser for the Python literals RSR clients put in `filter=`, `exclude=` and `q_filterN`
 * (http.md, Filtering): dictionaries of strings, numbers, True/False/None, lists and tuples. It
 * only parses (the original called ast.literal_eval; nothing here is ever evaluated) and refuses
 * anything else, including input so long or so deep that it could only be an attack.
 */
export type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

export class LiteralError extends Error {}

const MAX_LENGTH = 10_000;
const MAX_DEPTH = 20;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '' };
const NUMBER = /^[+-]?(\d[\d_]*(\.\d*)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)/;

class Parser {
  private position = 0;

  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  parse(): PyValue {
    const value = this.value(0);
    this.space();
    if (this.position !== this.text.length) this.fail();
    return value;
  }

  private fail(): never {
    throw new LiteralError(`unexpected input at ${this.position}`);
  }

  private space(): void {
    while (/\s/.test(this.text[this.position] ?? '')) this.position += 1;
  }

  private value(depth: number): PyValue {
    if (depth > MAX_DEPTH) this.fail();
    this.space();
    const char = this.text[this.position];
    if (char === '{') return this.dict(depth);
    if (char === '[') return this.sequence(depth, ']');
    if (char === '(') return this.sequence(depth, ')');
    if (char === "'" || char === '"') return this.string();
    for (const [word, value] of [['True', true], ['False', false], ['None', null]] as const) {
      if (this.text.startsWith(word, this.position) && !/\w/.test(this.text[this.position + word.length] ?? '')) {
        this.position += word.length;
        return value;
      }
    }
    const match = NUMBER.exec(this.text.slice(this.position));
    if (!match) this.fail();
    this.position += match[0].length;
    const number = Number(match[0].replace(/_/g, ''));
    if (!Number.isFinite(number)) this.fail();
    return number;
  }

  /** Items up to `close`, separated by commas, a trailing comma allowed. */
  private items(close: string, item: () => void): void {
    this.position += 1;
    this.space();
    while (this.text[this.position] !== close) {
      item();
      this.space();
      if (this.text[this.position] === ',') {
        this.position += 1;
        this.space();
      } else if (this.text[this.position] !== close) this.fail();
    }
    this.position += 1;
  }

  private sequence(depth: number, close: string): PyValue[] {
    const values: PyValue[] = [];
    this.items(close, () => values.push(this.value(depth + 1)));
    return values;
  }

  private dict(depth: number): { [key: string]: PyValue } {
    const entries: { [key: string]: PyValue } = {};
    this.items('}', () => {
      const key = this.value(depth + 1);
      if (typeof key !== 'string') this.fail();
      this.space();
      if (this.text[this.position] !== ':') this.fail();
      this.position += 1;
      entries[key] = this.value(depth + 1);
    });
    return entries;
  }

  private string(): string {
    const quote = this.text[this.position];
    let out = '';
    for (this.position += 1; this.position < this.text.length; this.position += 1) {
      const char = this.text[this.position];
      if (char === quote) {
        this.position += 1;
        return out;
      }
      if (char === '\n') this.fail();
      if (char !== '\\') {
        out += char;
        continue;
      }
      const next = this.text[++this.position] ?? '';
      const hex = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0;
      if (hex) {
        const digits = this.text.slice(this.position + 1, this.position + 1 + hex);
        if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits) || Number.parseInt(digits, 16) > 0x10ffff) this.fail();
        out += String.fromCodePoint(Number.parseInt(digits, 16));
        this.position += hex;
      } else out += ESCAPES[next] ?? `\\${next}`;
    }
    this.fail();
  }
}

export function parsePythonLiteral(text: string): PyValue {
  if (text.length > MAX_LENGTH) throw new LiteralError('too long');
  return new Parser(text).parse();
}
