/**
 * The Node.js the service runs on: package.json's engines says exactly the lines supported (20.19+,
 * 22.13+ and 24), every installed package accepts the oldest of each, and the running Node is one
 * of them (CI runs the suite on 20 and on 24: .ci/run, scripts/with-node.sh). And how many
 * processes it starts by default (WORKERS): the CPUs that its cgroup's CPU quota allows, read
 * from the files' own text (cgroup v2's cpu.max, v1's cpu.cfs_quota_us), else the CPUs it sees.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, test } from 'node:test';
import { cfsQuotaLimit, cgroupCpuLimit, cpuMaxLimit, defaultWorkers, loadConfig } from '../src/config.ts';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const manifest = JSON.parse(read('package.json')) as { engines: { node: string } };
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[]; os?: string[]; cpu?: string[] }> };

type Version = [number, number, number];
const parse = (text: string): Version => {
  const [major, minor, patch] = text.replace(/^v/, '').split('.').map(Number);
  return [major, minor || 0, patch || 0];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/**
 * Whether a version is in an npm range of the kinds packages write in engines: `||` between
 * alternatives; in each, comparators (`>=20.19`, `< 21`, `^22.13.0`, `~1.2`, `20.x`, `20`, `*`).
 */
function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((alternative) => {
    const comparators = alternative.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split(/\s+/).filter(Boolean);
    return comparators.every((comparator) => {
      const found = /^(>=|<=|>|<|=|\^|~)?v?(\d+|x|\*)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(comparator);
      if (!found) throw new Error(`a range this test does not read: '${range}'`);
      const [, operator = '=', ...parts] = found;
      const given = parts.filter((part) => part !== undefined && part !== 'x' && part !== '*').map(Number);
      const bound: Version = [given[0] ?? 0, given[1] ?? 0, given[2] ?? 0];
      // The first version past a partial one: 20 -> 21.0.0, 20.19 -> 20.20.0.
      const past: Version = given.length === 3 ? [bound[0], bound[1], bound[2] + 1] : given.length === 2 ? [bound[0], bound[1] + 1, 0] : [bound[0] + 1, 0, 0];
      if (given.length === 0) return true;
      switch (operator) {
        case '>=': return compare(v, bound) >= 0;
        case '>': return compare(v, past) >= 0;
        case '<': return compare(v, bound) < 0;
        case '<=': return compare(v, past) < 0;
        case '^': return compare(v, bound) >= 0 && (bound[0] > 0 ? v[0] === bound[0] : compare(v, past) < 0);
        case '~': return compare(v, bound) >= 0 && compare(v, given.length === 1 ? past : [bound[0], bound[1] + 1, 0]) < 0;
        default: return compare(v, bound) >= 0 && compare(v, past) < 0;
      }
    });
  });
}

describe('Node.js versions', () => {
  const supported = manifest.engines.node;

  test('the range reader reads ranges as npm does', () => {
    assert.equal(satisfies('20.19.0', '>=20.19'), true);
    assert.equal(satisfies('20.18.3', '>=20.19'), false);
    assert.equal(satisfies('22.12.0', '^20.19.0 || ^22.13.0 || >=24'), false);
    assert.equal(satisfies('23.0.0', '20 || >=22'), true);
    assert.equal(satisfies('21.5.0', '18 || 20 || >=22'), false);
    assert.equal(satisfies('20.16.0', '>= 20.16.0'), true);
    assert.equal(satisfies('20.5.0', '^20.12||^22.13||>=24.0'), false);
    assert.equal(satisfies('25.1.0', '20.x || 22.x || 23.x || 24.x || 25.x'), true);
    assert.equal(satisfies('26.0.0', '20.x || 22.x || 23.x || 24.x || 25.x'), false);
    assert.equal(satisfies('20.19.0', '>=22.12.0 || >=20.19.0 <21.0.0'), true);
    assert.equal(satisfies('21.0.0', '>=22.12.0 || >=20.19.0 <21.0.0'), false);
    assert.equal(satisfies('14.17.0', '>=16 || 14 >=14.17'), true);
    assert.equal(satisfies('24.0.0', '*'), true);
  });

  test('engines says the lines supported, exactly: 20 from 20.19, 22 from 22.13, and 24', () => {
    assert.equal(supported, '^20.19.0 || ^22.13.0 || ^24.0.0');
    for (const version of ['20.19.0', '20.20.2', '22.13.0', '22.99.0', '24.0.0', '24.21.0']) assert.equal(satisfies(version, supported), true, version);
    for (const version of ['18.20.0', '20.18.3', '21.7.0', '22.12.0', '23.11.0', '25.0.0', '26.0.0']) assert.equal(satisfies(version, supported), false, version);
  });

  test('the Node.js running this is a supported one', () => {
    assert.equal(satisfies(process.versions.node, supported), true, process.versions.node);
  });

  test('every package in the lock file accepts the oldest release of each supported line', () => {
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = !path || Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      // Packages for other systems (fsevents, @esbuild/darwin-arm64…) are never installed here.
      if (!range || (entry.os && !entry.os.includes('linux')) || (entry.cpu && !entry.cpu.includes('x64'))) continue;
      for (const oldest of supported.split('||').map((line) => line.trim().replace(/^\^/, ''))) {
        if (!satisfies(oldest, range)) refused.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} (${range}) refuses ${oldest}`);
      }
    }
    assert.deepEqual(refused, []);
  });
});

describe('WORKERS by default: the CPUs the process may use', () => {
  test("cgroup v2's cpu.max: a quota over a period, or max for none", () => {
    assert.equal(cpuMaxLimit('max 100000\n'), null);
    assert.equal(cpuMaxLimit('150000 100000\n'), 1.5);
    assert.equal(cpuMaxLimit('200000 50000\n'), 4);
    assert.equal(cpuMaxLimit('50000 100000'), 0.5);
    assert.equal(cpuMaxLimit('max'), null);
    assert.equal(cpuMaxLimit(''), null);
  });

  test("cgroup v1's cpu.cfs_quota_us over cpu.cfs_period_us, -1 for none", () => {
    assert.equal(cfsQuotaLimit('-1\n', '100000\n'), null);
    assert.equal(cfsQuotaLimit('300000\n', '100000\n'), 3);
    assert.equal(cfsQuotaLimit('25000\n', '100000\n'), 0.25);
    assert.equal(cfsQuotaLimit('garbage', '100000'), null);
  });

  /** A reader of the files given, as they would be on a machine. */
  const files = (contents: Record<string, string>) => (path: string) => contents[path] ?? null;

  test('the smallest limit of the cgroup and of its parents, as /proc/self/cgroup places it', () => {
    // A systemd service with CPUQuota=250% in a slice of 1 CPU (cgroup v2).
    assert.equal(cgroupCpuLimit(files({
      '/proc/self/cgroup': '0::/system.slice/rsr.service\n',
      '/sys/fs/cgroup/system.slice/rsr.service/cpu.max': '250000 100000\n',
      '/sys/fs/cgroup/system.slice/cpu.max': '100000 100000\n',
    })), 1);
    // A container (docker run --cpus=1.5) with its own cgroup namespace: its cgroup is the root.
    assert.equal(cgroupCpuLimit(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '150000 100000\n' })), 1.5);
    // cgroup v1 in a container: the path names the host's cgroup, mounted as the root.
    assert.equal(cgroupCpuLimit(files({
      '/proc/self/cgroup': '12:memory:/docker/0a1b\n11:cpu,cpuacct:/docker/0a1b\n0::/\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '200000\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
    })), 2);
    // No limit anywhere; and no cgroups at all (not Linux).
    assert.equal(cgroupCpuLimit(files({ '/proc/self/cgroup': '0::/user.slice\n', '/sys/fs/cgroup/user.slice/cpu.max': 'max 100000\n' })), null);
    assert.equal(cgroupCpuLimit(files({})), null);
  });

  test('whole CPUs of the limit, at least one, at most the CPUs there are; all of them without a limit', () => {
    assert.equal(defaultWorkers(8, null), 8);
    assert.equal(defaultWorkers(8, 2), 2);
    assert.equal(defaultWorkers(8, 1.5), 1);
    assert.equal(defaultWorkers(8, 0.25), 1);
    assert.equal(defaultWorkers(2, 16), 2);
  });

  test("this machine's own files: read as the kernel wrote them, and WORKERS' default follows", () => {
    const membership = readFileSync('/proc/self/cgroup', 'utf8');
    assert.match(membership, /^\d+:[^:\n]*:\//m);
    const limits: (number | null)[] = [];
    if (existsSync('/sys/fs/cgroup/cpu.max')) {
      const text = readFileSync('/sys/fs/cgroup/cpu.max', 'utf8');
      assert.match(text, /^(max|\d+) \d+\n$/);
      limits.push(cpuMaxLimit(text));
    }
    for (const dir of ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpu,cpuacct']) {
      if (!existsSync(`${dir}/cpu.cfs_quota_us`)) continue;
      const quota = readFileSync(`${dir}/cpu.cfs_quota_us`, 'utf8');
      const period = readFileSync(`${dir}/cpu.cfs_period_us`, 'utf8');
      assert.match(quota, /^-?\d+\n$/);
      assert.equal(cfsQuotaLimit(quota, period), quota.trim() === '-1' ? null : Number(quota) / Number(period));
      limits.push(cfsQuotaLimit(quota, period));
    }
    // Where the process's CPU cgroups are the roots (this machine, a container), their files are all there is to read.
    const cpuPaths = [/^\d+:(?:[^:\n]*,)?cpu(?:,[^:\n]*)?:(\/.*)$/m, /^0::(\/.*)$/m].map((line) => line.exec(membership)?.[1] ?? '/');
    if (cpuPaths.every((path) => path === '/')) {
      const found = limits.filter((limit): limit is number => limit !== null);
      assert.equal(cgroupCpuLimit(), found.length ? Math.min(...found) : null);
    }
    const workers = loadConfig({}).workers;
    assert.equal(workers, defaultWorkers());
    assert.ok(workers >= 1 && workers <= availableParallelism());
    assert.equal(loadConfig({ WORKERS: '3' }).workers, 3);
  });
});
