/** The version in package.json, found beside src/ in a checkout and beside dist/ when built. */
import { existsSync, readFileSync } from 'node:fs';

export function packageVersion(): string {
  for (const path of ['../package.json', '../../package.json']) {
    const file = new URL(path, import.meta.url);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return 'unknown';
}
