import { type RedisClient, type RedisKeys } from '#libs/redis';
import { type AdmissionSubject, admissionVerdict, settleCall, subjectSlot } from './admission.js';
import { budgetAdmitArgs } from './budgets.js';
import { type PendingSettle } from './quota.store.js';
import { REBUILD, runScript, SETTLES_FIRST } from './scripts.js';

/**
 * Leases of headroom (docs/quota.md, "Leases"): an edge admits a key's requests from memory against
 * an amount Redis reserved for it, and asks Redis again only to renew it. A lease reserves; it moves
 * no money: the balance, key spends and budget counters keep their meaning (durable - pending) and
 * settles debit them as before, so reconciliation is unchanged. What Redis hands out is the account's
 * headroom less every other edge's live lease, of the balance, of the key's spend limit and of each
 * budget the lease covers, and at most a fraction (1 / share) of it: a small balance yields small
 * leases, and several edges never starve one another.
 *
 * The leases of an account: one hash in its slot, lease id -> `amount:counted until ms:key id:budget
 * ids`, where "counted until" is the lease's end plus its grace (the edges' clocks may differ by up
 * to it; the edge itself stops at the end). An entry past it is dropped by the next grant of the
 * account, so a crashed edge's lease comes back by itself.
 */
export const LEASE = `
local bal = redis.call('GET', KEYS[1])
if not bal then return 1 end
local me, now, keyId = ARGV[1], tonumber(ARGV[2]), ARGV[7]
local ids, held = {}, {}
for b in string.gmatch(ARGV[9], '[^,]+') do ids[#ids + 1] = b; held[b] = 0 end
local heldAll, heldKey = 0, 0
local entries = redis.call('HGETALL', KEYS[3])
for i = 1, #entries, 2 do
  local amount, exp, k, bs = string.match(entries[i + 1], '^(%d+):(%d+):([^:]*):(.*)$')
  if not amount or tonumber(exp) < now then
    redis.call('HDEL', KEYS[3], entries[i])
  elseif entries[i] ~= me then
    amount = tonumber(amount)
    heldAll = heldAll + amount
    if k == keyId then heldKey = heldKey + amount end
    for b in string.gmatch(bs, '[^,]+') do
      if held[b] then held[b] = held[b] + amount end
    end
  end
end
local room = tonumber(bal) - heldAll
if room <= 0 then
  redis.call('HDEL', KEYS[3], me)
  return 2
end
if ARGV[8] ~= '' then
  local r = tonumber(ARGV[8]) - tonumber(redis.call('HGET', KEYS[2], keyId) or '0') - heldKey
  if r <= 0 then
    redis.call('HDEL', KEYS[3], me)
    return 3
  end
  if r < room then room = r end
end
local ki = 4
for i = 1, tonumber(ARGV[10]) do
  local limit, n = tonumber(ARGV[9 + 2 * i]), tonumber(ARGV[10 + 2 * i])
  local values = redis.call('MGET', unpack(KEYS, ki, ki + n - 1))
  local spent, first = 0, 0
  for j = 1, n do
    local v = tonumber(values[j] or '0')
    if v > 0 and first == 0 then first = j end
    spent = spent + v
  end
  local r = limit - spent - held[ids[i]]
  if r <= 0 then
    redis.call('HDEL', KEYS[3], me)
    return {8, i, first}
  end
  if r < room then room = r end
  ki = ki + n
end
local amount = math.floor(room / tonumber(ARGV[4]))
if ARGV[3] ~= '' and tonumber(ARGV[3]) < amount then amount = tonumber(ARGV[3]) end
if amount < 1 then amount = 1 end
redis.call('HSET', KEYS[3], me, string.format('%.0f:%.0f:%s:%s', amount, tonumber(ARGV[5]) + tonumber(ARGV[6]), keyId, ARGV[9]))
redis.call('PEXPIRE', KEYS[3], ARGV[11 + 2 * tonumber(ARGV[10])])
return {0, string.format('%.0f', amount)}
`;

/**
 * An account's waiting settles, then one lease operation, in one call (as SETTLE_THEN_ADMIT): the
 * settles are applied before the lease is sized, so the edge's own finished requests are in the
 * balance it is sized from. SETTLE and LEASE run unchanged on their slices of KEYS and ARGV.
 * ARGV: number of settles, per settle its key count, argument count and arguments, then the
 *       operation ('lease' or 'return'), its key count, argument count and arguments.
 * 'return' drops the named leases (KEYS: the leases hash; ARGV: lease ids). Returns LEASE's reply,
 * or 0 for a return or no operation.
 */
export const SETTLE_THEN_LEASE = `
local function lease(KEYS, ARGV)
${LEASE}
end
${SETTLES_FIRST}
local op = ARGV[ai]
if op == nil then return 0 end
local nk, na = tonumber(ARGV[ai + 1]), tonumber(ARGV[ai + 2])
local k, a = {unpack(KEYS, ki, ki + nk - 1)}, {unpack(ARGV, ai + 3, ai + 2 + na)}
if op == 'return' then
  for i = 1, #a do redis.call('HDEL', k[1], a[i]) end
  return 0
end
return lease(k, a)
`;

/** What one grant asks for. */
export interface LeaseRequest {
  readonly leaseId: string;
  /** At most this much (nanocredits), or null: as much as the share of the headroom allows. */
  readonly wantNanos: number | null;
  /** The lease ends here (edge clock, ms): its TTL, or the end of a budget window it covers. */
  readonly expiresAtMs: number;
  /** How long after `expiresAtMs` Redis still counts it (edges' clocks differ a little). */
  readonly graceMs: number;
  /** The lease gets at most headroom / share. */
  readonly share: number;
}

export type LeaseVerdict =
  | { readonly ok: true; readonly amountNanos: number }
  | Exclude<ReturnType<typeof admissionVerdict>, { ok: true }>;

/** KEYS and ARGV of LEASE for the subject's key, spend limit and budgets at `nowMs`. */
export function leaseCall(
  keys: RedisKeys,
  s: AdmissionSubject,
  req: LeaseRequest,
  nowMs: number,
): { keys: string[]; args: Array<string | number> } {
  const slot = subjectSlot(s);
  const budgets = s.budgets ?? [];
  const b = budgetAdmitArgs(keys, slot, budgets, nowMs);
  return {
    keys: [keys.quotaBalance(slot), keys.quotaKeySpent(slot), keys.quotaLeases(slot), ...b.keys],
    args: [
      req.leaseId,
      nowMs,
      req.wantNanos === null ? '' : Math.max(1, Math.floor(req.wantNanos)),
      req.share,
      Math.floor(req.expiresAtMs),
      req.graceMs,
      s.keyId,
      s.keySpendLimitNanos ?? '',
      budgets.map((x) => x.id).join(','),
      ...b.args,
      // the hash lives as long as the longest lease it can hold, plus its grace
      Math.max(1, Math.ceil(req.expiresAtMs - nowMs + req.graceMs)) + 60_000,
    ],
  };
}

/** LEASE's reply as a verdict: refusals are ADMIT's (same codes, same messages). */
export function leaseVerdict(reply: unknown, nowMs: number, s: AdmissionSubject): LeaseVerdict {
  if (Array.isArray(reply) && reply[0] === 0) return { ok: true, amountNanos: Number(reply[1]) };
  const v = admissionVerdict(reply, nowMs, s.budgets);
  if (v.ok) throw new Error('lease script admitted without an amount');
  return v;
}

type Call = { keys: string[]; args: Array<string | number> };

function settlesThen(keys: RedisKeys, settles: readonly PendingSettle[], nowMs: number) {
  const allKeys: string[] = [];
  const args: Array<string | number> = [settles.length];
  const add = (call: Call): void => {
    allKeys.push(...call.keys);
    args.push(call.keys.length, call.args.length, ...call.args);
  };
  for (const { subject, charge } of settles) add(settleCall(keys, subject, charge, nowMs));
  return { allKeys, args };
}

/**
 * An account's waiting settles, then a grant (or renewal) of one lease, in one round trip. All of
 * `settles` must be in the subject's account (one Cluster slot).
 */
export async function settleThenLease(
  redis: RedisClient,
  keys: RedisKeys,
  settles: readonly PendingSettle[],
  subject: AdmissionSubject,
  req: LeaseRequest,
  nowMs: number,
): Promise<LeaseVerdict> {
  const { allKeys, args } = settlesThen(keys, settles, nowMs);
  const call = leaseCall(keys, subject, req, nowMs);
  allKeys.push(...call.keys);
  args.push('lease', call.keys.length, call.args.length, ...call.args);
  return leaseVerdict(await runScript(redis, SETTLE_THEN_LEASE, allKeys, args), nowMs, subject);
}

/** An account's waiting settles, then its leases `leaseIds` handed back, in one round trip. */
export async function settleThenReturnLeases(
  redis: RedisClient,
  keys: RedisKeys,
  settles: readonly PendingSettle[],
  slot: string,
  leaseIds: readonly string[],
  nowMs: number,
): Promise<void> {
  const { allKeys, args } = settlesThen(keys, settles, nowMs);
  allKeys.push(keys.quotaLeases(slot));
  args.push('return', 1, leaseIds.length, ...leaseIds);
  await runScript(redis, SETTLE_THEN_LEASE, allKeys, args);
}

/**
 * A cold account's load and its first lease in one call: REBUILD, then LEASE, unchanged on their
 * slices of KEYS and ARGV (the lease sized from the balance just written). The edge's cold
 * admission so pays one round trip for both instead of two.
 * KEYS: REBUILD's, then LEASE's (all in the account's slot).
 * ARGV: REBUILD's key count, its argument count, its arguments, then LEASE's arguments.
 * Returns {REBUILD's reply, LEASE's reply}; {REBUILD's reply} alone when it asked about pending
 * ids ({2, ids}: nothing was written, so no lease is sized).
 */
export const REBUILD_THEN_LEASE = `
local function rebuild(KEYS, ARGV)
${REBUILD}
end
local function lease(KEYS, ARGV)
${LEASE}
end
local nk, na = tonumber(ARGV[1]), tonumber(ARGV[2])
local r = rebuild({unpack(KEYS, 1, nk)}, {unpack(ARGV, 3, 2 + na)})
if r[1] == 2 then return {r} end
return {r, lease({unpack(KEYS, nk + 1, #KEYS)}, {unpack(ARGV, 3 + na, #ARGV)})}
`;

/**
 * A REBUILD with more arguments than this runs alone (its lease in a call of its own): Lua's
 * unpack is bounded by the stack (about 8,000 values), and an account with thousands of keys or
 * pending charges passes that many.
 */
export const REBUILD_THEN_LEASE_MAX_ARGS = 2_000;
