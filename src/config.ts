/** Settings from the environment, with the defaults a newcomer needs (README, "Configuration"). */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  databasePoolSize: number;
  timeZone: string;
  trustProxy: boolean;
  /** Host names requests may address (links are built from them); null: any. */
  allowedHosts: string[] | null;
}

function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not '${raw}'`);
  return value;
}

function validTimeZone(zone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    throw new Error(`TIME_ZONE '${zone}' is not a time zone`);
  }
}

/** `ALLOWED_HOSTS`: host names separated by commas, `.example.org` for it and its subdomains; `*` or unset for any. */
function allowedHosts(raw: string | undefined): string[] | null {
  const hosts = (raw ?? '').split(',').map((host) => host.trim().toLowerCase()).filter(Boolean);
  return hosts.length === 0 || hosts.includes('*') ? null : hosts;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: integer('PORT', 8000),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || 'sqlite:./data/rsr.sqlite',
    databasePoolSize: integer('DATABASE_POOL_SIZE', 10),
    timeZone: validTimeZone(env.TIME_ZONE || 'Europe/Stockholm'),
    trustProxy: ['1', 'true', 'yes'].includes((env.TRUST_PROXY ?? '').toLowerCase()),
    allowedHosts: allowedHosts(env.ALLOWED_HOSTS),
  };
}
