/**
 * Prometheus' text exposition format (version 0.0.4) read strictly: every line is a HELP or TYPE
 * comment or a sample `name{label="value",…} number`, every sample belongs to a family whose TYPE
 * was given, and a histogram's `_bucket`, `_sum` and `_count` samples are told apart.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)",?/;
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

function labels(text: string, line: string): Record<string, string> {
  const found: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const match = LABEL.exec(rest);
    if (!match) throw new Error(`bad labels in: ${line}`);
    found[match[1]] = match[2].replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
    rest = rest.slice(match[0].length);
  }
  return found;
}

/** Numbers as Prometheus reads them (Go's ParseFloat): NaN and Inf in any case. */
function number(text: string, line: string): number {
  const word = text.toLowerCase();
  if (word === '+inf' || word === 'inf') return Infinity;
  if (word === '-inf') return -Infinity;
  if (word === 'nan') return NaN;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`bad value in: ${line}`);
  return value;
}

export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    let found = families.get(name);
    if (!found) families.set(name, (found = { name, type: 'untyped', help: '', samples: [] }));
    return found;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (comment) {
      if (comment[1] === 'HELP') family(comment[2]).help = comment[3];
      else family(comment[2]).type = comment[3];
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a sample: ${line}`);
    const [, name, labelText, value] = sample;
    const owner = [...families.values()].find((candidate) => (SUFFIXES[candidate.type] ?? ['']).some((suffix) => `${candidate.name}${suffix}` === name));
    if (!owner) throw new Error(`a sample of no declared family: ${line}`);
    owner.samples.push({ name, labels: labels(labelText ?? '', line), value: number(value, line) });
  }
  return families;
}

/** The value of the first sample named `name` whose labels include `wanted` (0 if none). */
export function sampleValue(families: Map<string, Family>, name: string, wanted: Record<string, string> = {}): number {
  for (const family of families.values()) {
    const found = family.samples.find((sample) => sample.name === name && Object.entries(wanted).every(([key, value]) => sample.labels[key] === value));
    if (found) return found.value;
  }
  return 0;
}
