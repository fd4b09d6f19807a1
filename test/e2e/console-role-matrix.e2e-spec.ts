import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ModulesContainer } from '@nestjs/core';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { ROUTE_RULE } from '../../apps/console/src/session/principal.js';
import { ROLE_REFUSAL } from '../../apps/console/src/session/session.guard.js';
import { USER_ROLES, type UserRole } from '#libs/db';
import { type BareConsole, startBareConsole } from '../support/bare-console.js';
import { ConsoleClient } from '../support/console-client.js';

/**
 * The route x role matrix (issue 24): every operation of the console's OpenAPI document, called by
 * every kind of caller (a session user of each role, a named token of each token role, the
 * bootstrap token, no credentials), must answer as its declared rule (x-roles, x-principals) says:
 * allowed -> neither 401 nor 403; refused -> 403 (401 without credentials). The walk is generated
 * from the document, so a new route is walked the day it is added, and one without a rule fails.
 */

const BOOTSTRAP = 'matrix-e2e-bootstrap-token-0123456789';
const PASSWORD = 'correct horse battery staple';
const DOC = new URL('../../docs/console-api.md', import.meta.url);
const TABLE_START = '<!-- role-matrix:start (test/e2e/console-role-matrix.e2e-spec.ts writes it) -->';
const TABLE_END = '<!-- role-matrix:end -->';

/** Controllers the console mounts from shared libraries, outside /api and the console's rules. */
const OUTSIDE_THE_CONSOLE: Readonly<Record<string, string>> = {
  MetricsController: 'libs/telemetry: GET /metrics, Prometheus text, mounted by every app',
};

/** A markdown table's rows, cells trimmed: the same table whether prettier aligned it or not. */
const tableRows = (md: string): string[] =>
  md
    .trim()
    .split('\n')
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/^-+$/, '---'))
        .join('|'),
    );

/** Code-point order (not the locale's): the table reads the same on every machine. */
const byPathThenMethod = (a: Operation, b: Operation): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : a.method < b.method ? -1 : a.method > b.method ? 1 : 0;

interface Operation {
  readonly method: string;
  /** As the document spells it: /api/admin/users/{id}. */
  readonly path: string;
  readonly summary: string;
  readonly roles: readonly string[] | undefined;
  readonly principals: readonly string[] | undefined;
}

interface Caller {
  readonly label: string;
  readonly kind: 'session' | 'token' | 'none';
  readonly role: UserRole | null;
  readonly client: ConsoleClient;
  /** Signs the session in again (after the walk reaches sign-out). */
  readonly renew?: () => Promise<void>;
}

let c: BareConsole;
let operations: Operation[];
const callers: Caller[] = [];

/** A value each path parameter accepts (or refuses with a 400/404, never a 401/403). */
function filledPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'version') return '1';
    if (/id$/i.test(name) && name !== 'requestId') return '00000000-0000-4000-8000-000000000000';
    return 'matrix-probe';
  });
}

/** Whether the rule lets this caller in (the test's own reading of x-roles and x-principals). */
function allows(op: Operation, caller: Caller): boolean {
  if (op.roles?.includes('public')) return true;
  if (caller.kind === 'none' || caller.role === null) return false;
  if (!op.roles?.includes(caller.role)) return false;
  return op.principals?.includes(caller.kind) ?? false;
}

/** The answer's status, and whether it is the guard's refusal (not a route's own 403). */
async function call(caller: Caller, op: Operation): Promise<{ status: number; byRoles: boolean }> {
  const mutating = !['GET', 'HEAD', 'DELETE'].includes(op.method);
  const res = await caller.client.request(op.method, filledPath(op.path), mutating ? {} : undefined);
  const message: unknown = res.body?.error?.message;
  return {
    status: res.status,
    byRoles: res.status === 403 && typeof message === 'string' && message.startsWith(ROLE_REFUSAL),
  };
}

beforeAll(async () => {
  c = await startBareConsole('role_matrix', BOOTSTRAP);
  callers.push({ label: 'no credentials', kind: 'none', role: null, client: new ConsoleClient(c.url) });
  callers.push({ label: 'bootstrap token', kind: 'token', role: 'admin', client: c.bootstrap });
  for (const role of USER_ROLES) {
    const email = `${role}@example.com`;
    const created = await c.bootstrap.post('/api/admin/users', { email, password: PASSWORD, role });
    expect(created.status).toBe(201);
    const client = new ConsoleClient(c.url);
    const renew = async () => void (await client.signIn(email, PASSWORD));
    await renew();
    callers.push({ label: `${role} session`, kind: 'session', role, client, renew });
  }
  for (const role of ['admin', 'operator', 'auditor'] as const) {
    const res = await c.bootstrap.post('/api/admin/tokens', { name: `${role} bot`, role, expiresInDays: 1 });
    expect(res.status).toBe(201);
    callers.push({
      label: `${role} token`,
      kind: 'token',
      role,
      client: new ConsoleClient(c.url, res.body.secret),
    });
  }
  const doc = await new ConsoleClient(c.url).get('/api/openapi.json');
  expect(doc.status).toBe(200);
  operations = Object.entries(doc.body.paths as Record<string, Record<string, Record<string, unknown>>>)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, o]) => ({
        method: method.toUpperCase(),
        path,
        summary: String(o.summary ?? ''),
        roles: o['x-roles'] as string[] | undefined,
        principals: o['x-principals'] as string[] | undefined,
      })),
    )
    .sort(byPathThenMethod)
    // Sign-out last: it ends the session the other calls use.
    .sort((a, b) => Number(a.path.endsWith('/sign-out')) - Number(b.path.endsWith('/sign-out')));
}, 60_000);

afterAll(async () => {
  await c?.close();
});

describe('every console route declares its roles', () => {
  it('in the OpenAPI document: no operation without x-roles', () => {
    expect(operations.length).toBeGreaterThan(40);
    const undeclared = operations.filter((o) => !o.roles?.length).map((o) => `${o.method} ${o.path}`);
    expect(undeclared).toEqual([]);
  });

  it('on every controller method, also those left out of the document (health, docs, web)', () => {
    const missing: string[] = [];
    for (const module of c.app.get(ModulesContainer).values())
      for (const { metatype } of module.controllers.values()) {
        const proto = (metatype as { prototype: Record<string, unknown> }).prototype;
        const controller = (metatype as { name: string }).name;
        if (controller in OUTSIDE_THE_CONSOLE) continue;
        for (const name of Object.getOwnPropertyNames(proto)) {
          if (name === 'constructor') continue;
          const handler = proto[name];
          if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined)
            continue;
          const rule =
            Reflect.getMetadata(ROUTE_RULE, handler) ?? Reflect.getMetadata(ROUTE_RULE, metatype as object);
          if (rule === undefined) missing.push(`${controller}.${name}`);
        }
      }
    expect(missing).toEqual([]);
  });

  it('keeps the policy: admin everywhere, auditors never change anything, known roles only', () => {
    const known = new Set<string>([...USER_ROLES, 'public']);
    for (const op of operations) {
      expect(op.roles!.every((r) => known.has(r))).toBe(true);
      if (op.roles!.includes('public')) continue;
      expect(`${op.method} ${op.path}: ${op.roles!.join(',')}`).toContain('admin');
      // Signing out ends one's own session: the one non-GET an auditor may call.
      if (op.roles!.includes('auditor') && op.method !== 'GET')
        expect(`${op.method} ${op.path}`).toBe('POST /api/auth/sign-out');
    }
  });
});

describe('the matrix', () => {
  it('answers every operation as its rule says, for every caller', async () => {
    const wrong: string[] = [];
    let calls = 0;
    for (const op of operations) {
      for (const caller of callers) {
        const { status, byRoles } = await call(caller, op);
        calls++;
        const expected = allows(op, caller) ? 'not 401/403' : caller.kind === 'none' ? 401 : 403;
        // Allowed: neither 401 nor the guard's 403; the route may still refuse on its own terms (a
        // forged setup token, a team one is not in: 403 with its own message). Refused: the
        // guard's 403, or 401 without credentials. Never a 500 (502: no router in this test).
        const ok =
          status < 500 || status === 502
            ? expected === 'not 401/403'
              ? status !== 401 && !byRoles
              : expected === 401
                ? status === 401
                : byRoles
            : false;
        if (!ok) wrong.push(`${op.method} ${op.path} as ${caller.label}: ${status}, expected ${expected}`);
        if (op.path.endsWith('/sign-out') && caller.renew) await caller.renew();
      }
    }
    expect(wrong).toEqual([]);
    expect(calls).toBe(operations.length * callers.length);
  }, 120_000);

  it('audits the refusals: a member calling an admin route is recorded', async () => {
    const res = await c.bootstrap.get(
      '/api/admin/audit?action=access.refused&actor=member@example.com&limit=200',
    );
    expect(res.status).toBe(200);
    const events = res.body.events as { target: { id: string }; reason: string; outcome: string }[];
    const on = (route: string) => events.find((e) => e.target.id === route);
    expect(on('POST /api/admin/tokens')).toMatchObject({ outcome: 'refused' });
    expect(on('PATCH /api/admin/users/:id')).toMatchObject({
      outcome: 'refused',
      reason: 'needs the role admin (you are member)',
    });
  });
});

describe('docs/console-api.md', () => {
  it("lists every route's roles as the document declares them", () => {
    // The API's routes (the web UI's catch-all, when the document lists it, is not the API).
    const rows = [...operations]
      .filter((o) => o.path.startsWith('/api/'))
      .sort(byPathThenMethod)
      .map((o) => {
        const who = o.roles!.includes('public')
          ? 'anyone (no credentials)'
          : o.roles!.join(', ') + (o.principals!.includes('token') ? '' : ' (signed-in users only)');
        return `| \`${o.method} ${o.path}\` | ${who} | ${o.summary.replace(/\|/g, '\\|')} |`;
      });
    const table = ['| Route | Roles | What |', '| --- | --- | --- |', ...rows].join('\n');
    const text = readFileSync(DOC, 'utf8');
    const start = text.indexOf(TABLE_START);
    const end = text.indexOf(TABLE_END);
    expect(start).toBeGreaterThan(-1);
    const current = text.slice(start + TABLE_START.length, end);
    // UPDATE_ROLE_TABLE=1 rewrites the table from the document (then prettier, review, commit).
    if (process.env.UPDATE_ROLE_TABLE === '1')
      writeFileSync(DOC, `${text.slice(0, start + TABLE_START.length)}\n${table}\n${text.slice(end)}`);
    else expect(tableRows(current)).toEqual(tableRows(table));
  });
});
