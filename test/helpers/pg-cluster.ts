/**
 * A throw-away PostgreSQL cluster of a test's own (initdb in a temp dir, a free loopback port),
 * for tests that crash, stop and restart the database server itself — never the shared one the
 * other suites use. The postmaster is this process's child (as the `postgres` user when we are
 * root: PostgreSQL refuses root), so a test can SIGKILL it and wait for it to be gone.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './fake-server.js';
import { eachLine } from './lines.js';

/** The newest PostgreSQL's binaries (Debian: /usr/lib/postgresql/N/bin), or undefined. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest && join(root, newest, 'bin');
}

/** Who the server runs as: the `postgres` user when we are root, else ourselves. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root, but there is no postgres user to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** The PIDs whose parent is `pid` (a postmaster's backends and helpers), from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // "pid (comm) state ppid …": comm may hold spaces, so read after its closing paren.
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Gone, or a zombie (it holds nothing any more; its new parent has yet to reap it). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

const READY = /database system is ready to accept connections/;

export interface Cluster {
  /** A superuser's URL for the `postgres` database. */
  url: string;
  port: number;
  /** Starts the postmaster (again, on the same data dir and port); resolves once it accepts connections. */
  start(opts?: { standby?: boolean }): Promise<void>;
  /**
   * SIGKILLs one backend (as the OOM killer does): the postmaster ends every other session
   * (57P02, crash_shutdown), recovers and accepts connections again, which this awaits.
   */
  killBackend(pid: number): Promise<void>;
  /** SIGKILLs the postmaster alone, then waits until every process it had is gone. */
  killPostmaster(): Promise<void>;
  /** A fast shutdown (SIGINT); resolves when the postmaster has exited. */
  stop(): Promise<void>;
  /** Stops whatever runs and removes the data dir. */
  destroy(): Promise<void>;
}

/**
 * initdb in `dir` (made by the caller, removed by destroy). Nothing made to survive a power loss
 * (fsync off), as `.ci/run`'s cluster; but a commit survives a crash of the server, which is
 * what these tests do to it (with synchronous_commit off a commit acknowledged up to 200 ms
 * before the crash was lost with it: the serve's own admin token, one time in a few). `standby`: started with standby.signal and hot_standby
 * off, it refuses every connection with 57P03 (cannot_connect_now), as a node does while
 * it starts or waits to become a replica.
 */
export async function createCluster(bin: string, dir: string): Promise<Cluster> {
  const user = serverUser();
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const password = Math.random().toString(36).slice(2) + Date.now().toString(36);
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, password, { mode: 0o600 });
  if (user) chownSync(pwfile, user.uid, user.gid);
  execFileSync(
    join(bin, 'initdb'),
    [
      '-D',
      data,
      '-U',
      'roster',
      `--pwfile=${pwfile}`,
      '--auth=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C.UTF-8',
      '--no-sync',
    ],
    {
      ...user,
      cwd: dir,
      stdio: 'ignore',
      env: { PATH: process.env.PATH, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
    },
  );
  rmSync(pwfile);
  const port = await freePort();
  let postmaster: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const start = async ({ standby = false } = {}) => {
    const signal = join(data, 'standby.signal');
    if (standby) writeFileSync(signal, '');
    else rmSync(signal, { force: true });
    if (user && standby) chownSync(signal, user.uid, user.gid);
    const child = spawn(
      join(bin, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
        '-c',
        `hot_standby=${standby ? 'off' : 'on'}`,
      ],
      {
        ...user,
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
      },
    );
    postmaster = child;
    // Should a test's clean-up never come (a hung hook), the server goes with this process.
    const orphaned = () => child.kill('SIGQUIT');
    process.once('exit', orphaned);
    exited = new Promise((resolve) =>
      child.once('exit', () => {
        process.off('exit', orphaned);
        resolve();
      }),
    );
    const log: string[] = [];
    eachLine(child.stderr!, (line) => {
      log.push(line);
      for (const w of [...watchers]) w(line);
    });
    const ready = logged(
      standby ? /entering standby mode|consistent recovery state reached|waiting for WAL/ : READY,
    );
    await Promise.race([
      ready,
      exited.then(() => {
        throw new Error(`postgres exited before it was ready:\n${log.join('\n')}`);
      }),
    ]);
  };

  /** Resolves on the postmaster's next log line that matches. */
  const watchers = new Set<(line: string) => void>();
  const logged = (pattern: RegExp) =>
    new Promise<void>((resolve) => {
      const watch = (line: string) => {
        if (!pattern.test(line)) return;
        watchers.delete(watch);
        resolve();
      };
      watchers.add(watch);
    });

  const stopWith = async (signal: NodeJS.Signals) => {
    const child = postmaster;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const pid = child.pid!;
    const helpers = childrenOf(pid);
    child.kill(signal);
    await exited;
    // Orphaned backends notice the postmaster's death on their own; until the last is gone the
    // shared memory is in use and a new postmaster on this data dir refuses to start.
    while (!helpers.every(gone)) await new Promise((r) => setTimeout(r, 20));
  };

  await start();
  return {
    url: `postgres://roster:${password}@127.0.0.1:${port}/postgres`,
    port,
    start,
    killPostmaster: () => stopWith('SIGKILL'),
    async killBackend(pid) {
      const restarted = logged(READY);
      process.kill(pid, 'SIGKILL');
      await restarted;
    },
    stop: () => stopWith('SIGINT'),
    async destroy() {
      await stopWith('SIGQUIT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
