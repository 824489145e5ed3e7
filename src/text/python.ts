/** Renderings the original (a Python service) produces, reproduced exactly. */

/** Python's str(float): shortest round-trip digits, `52.0` for whole numbers, exponent form
 * below 1e-4 and from 1e16 (codelists/README.md, location_unicode). */
export function pythonFloat(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : value < 0 ? '-inf' : 'nan';
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude < 1e-4 || magnitude >= 1e16)) {
    const [mantissa, exponent] = value.toExponential().split('e');
    const power = Number(exponent);
    const sign = power < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(power)).padStart(2, '0')}`;
  }
  const text = String(value);
  return Number.isInteger(value) ? `${text}.0` : text;
}

/** Python's '{:,}'.format(int(value)): truncated toward zero, thousands separated by commas. */
export function pythonThousands(value: number): string {
  const whole = Math.trunc(value);
  const digits = String(Math.abs(whole)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return whole < 0 ? `-${digits}` : digits;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Escapes text placed inside HTML (decision D15). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => HTML_ESCAPES[char]);
}
