import { describe, expect, it } from '@jest/globals';
import { Controller, Get } from '@nestjs/common';
import { Allow, AllowUsers, type Principal, Public, ROUTE_RULE, type RouteRule } from './principal.js';
import { BOOTSTRAP_TOKEN, refusalOf } from './session.guard.js';

/** @nestjs/swagger's metadata key for ApiExtension (not exported from its entry point). */
const API_EXTENSION = 'swagger/apiExtension';

const session = (role: 'admin' | 'operator' | 'auditor' | 'member'): Principal => ({
  kind: 'session',
  user: { id: 'u', email: `${role}@example.com`, role, groups: null },
  sessionId: 's',
  csrfToken: 'c',
});
const token = (role: 'admin' | 'operator' | 'auditor'): Principal => ({
  kind: 'token',
  token: { id: 't', name: `${role} bot`, role },
});

@Controller('probe')
@Allow('operator')
class Probe {
  @Get('a')
  classRule(): void {}

  @Get('b')
  @Allow('auditor')
  methodRule(): void {}

  @Get('c')
  @AllowUsers('member')
  own(): void {}

  @Get('d')
  @Public()
  open(): void {}
}

const ruleOf = (name: keyof Probe): RouteRule =>
  (Reflect.getMetadata(ROUTE_RULE, Probe.prototype[name]) ??
    Reflect.getMetadata(ROUTE_RULE, Probe)) as RouteRule;
const extensionsOf = (name: keyof Probe): Record<string, unknown> =>
  Reflect.getMetadata(API_EXTENSION, Probe.prototype[name]) as Record<string, unknown>;

describe('route rules', () => {
  it('always hold admin, first; a method rule overrides the class rule, in the guard and in OpenAPI', () => {
    expect(ruleOf('classRule')).toEqual({ public: false, roles: ['admin', 'operator'], tokens: true });
    expect(ruleOf('methodRule')).toEqual({ public: false, roles: ['admin', 'auditor'], tokens: true });
    expect(extensionsOf('classRule')).toEqual({
      'x-roles': ['admin', 'operator'],
      'x-principals': ['session', 'token'],
    });
    expect(extensionsOf('methodRule')).toEqual({
      'x-roles': ['admin', 'auditor'],
      'x-principals': ['session', 'token'],
    });
    expect(extensionsOf('own')).toEqual({ 'x-roles': ['admin', 'member'], 'x-principals': ['session'] });
    expect(extensionsOf('open')).toEqual({ 'x-roles': ['public'], 'x-principals': [] });
  });
});

describe('refusalOf', () => {
  it('denies a route without a rule to everyone, admins included (default deny)', () => {
    expect(refusalOf(undefined, session('admin'))).toBe('route declares no roles');
    expect(refusalOf(undefined, { kind: 'token', token: BOOTSTRAP_TOKEN })).toBe('route declares no roles');
  });

  it('lets in the roles of the rule, sessions and tokens alike', () => {
    const rule = ruleOf('methodRule');
    expect(refusalOf(rule, session('admin'))).toBeNull();
    expect(refusalOf(rule, session('auditor'))).toBeNull();
    expect(refusalOf(rule, token('auditor'))).toBeNull();
    expect(refusalOf(rule, { kind: 'token', token: BOOTSTRAP_TOKEN })).toBeNull();
    expect(refusalOf(rule, session('operator'))).toBe('needs the role admin or auditor (you are operator)');
    expect(refusalOf(rule, token('operator'))).toBe('needs the role admin or auditor (you are operator)');
    expect(refusalOf(rule, session('member'))).toBe('needs the role admin or auditor (you are member)');
  });

  it("refuses every token on a user's own routes, even an admin token", () => {
    const rule = ruleOf('own');
    expect(refusalOf(rule, session('member'))).toBeNull();
    expect(refusalOf(rule, session('admin'))).toBeNull();
    expect(refusalOf(rule, session('auditor'))).toBe('needs the role admin or member (you are auditor)');
    expect(refusalOf(rule, token('admin'))).toBe('needs a signed-in user (an admin token owns no keys)');
  });

  it('lets anyone through a public route', () => {
    expect(refusalOf(ruleOf('open'), session('member'))).toBeNull();
  });
});
