import { createHash } from 'node:crypto';
import { type RedisClient } from '#libs/redis';

/**
 * The quota Lua scripts. Every script touches only keys tagged `{<userId>}` (one Cluster slot),
 * and every nanocredit amount is changed with DECRBY/INCRBY/HINCRBY, which are exact int64
 * arithmetic in Redis; Lua numbers (doubles) are only used for comparisons against zero or a limit.
 */

/**
 * Admission: balance, key spend limit, budgets, key rpm/tpm, group rpm/tpm, all or nothing.
 * KEYS: balance, key-spent hash, key rpm, key tpm, group rpm, group tpm (current minute), then
 *       the spend counters of every budget's window (one, or 24 for a rolling window).
 * ARGV: key id, key spend limit ('' = none), key rpm, key tpm, group rpm, group tpm (0 = none),
 *       counter TTL seconds, number of budgets, then per budget its limit and its counter count.
 * Returns 0 admitted, 1 balance not loaded, 2 balance used up, 3 key limit reached,
 *         4 key rpm, 5 key tpm, 6 group rpm, 7 group tpm, {8, budget, oldest counter with spend}
 *         a budget spent (1-based indexes). A window's sum is a Lua number: exact below 2^53
 *         nanocredits (9 million credits), as are the comparisons with limits.
 * Only an admitted request is counted in the rpm windows; tpm windows are filled by SETTLE.
 */
export const ADMIT = `
local bal = redis.call('GET', KEYS[1])
if not bal then return 1 end
if tonumber(bal) <= 0 then return 2 end
if ARGV[2] ~= '' then
  local spent = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
  if spent >= tonumber(ARGV[2]) then return 3 end
end
local ki = 7
for i = 1, tonumber(ARGV[8] or '0') do
  local limit, n = tonumber(ARGV[7 + 2 * i]), tonumber(ARGV[8 + 2 * i])
  local values = redis.call('MGET', unpack(KEYS, ki, ki + n - 1))
  local spent, first = 0, 0
  for j = 1, n do
    local v = tonumber(values[j] or '0')
    if v > 0 and first == 0 then first = j end
    spent = spent + v
  end
  if spent >= limit then return {8, i, first} end
  ki = ki + n
end
local krpm, ktpm, grpm, gtpm = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
if krpm > 0 and tonumber(redis.call('GET', KEYS[3]) or '0') >= krpm then return 4 end
if ktpm > 0 and tonumber(redis.call('GET', KEYS[4]) or '0') >= ktpm then return 5 end
if grpm > 0 and tonumber(redis.call('GET', KEYS[5]) or '0') >= grpm then return 6 end
if gtpm > 0 and tonumber(redis.call('GET', KEYS[6]) or '0') >= gtpm then return 7 end
if krpm > 0 then
  redis.call('INCR', KEYS[3])
  redis.call('EXPIRE', KEYS[3], ARGV[7])
end
if grpm > 0 then
  redis.call('INCR', KEYS[5])
  redis.call('EXPIRE', KEYS[5], ARGV[7])
end
return 0
`;

/**
 * Admission by request rate alone, for the free token-count endpoints: key and group rpm, nothing
 * else (no balance, spend limit, budget or tpm: counting tokens spends none). The same windows
 * as ADMIT, so counting and generating share one request rate, as the vendors' limits do.
 * KEYS: key rpm, group rpm (current minute). ARGV: key rpm, group rpm (0 = none), counter TTL.
 * Returns 0 admitted, 4 key rpm, 6 group rpm (ADMIT's codes); only an admitted request counts.
 */
export const ADMIT_RATE = `
local krpm, grpm = tonumber(ARGV[1]), tonumber(ARGV[2])
if krpm > 0 and tonumber(redis.call('GET', KEYS[1]) or '0') >= krpm then return 4 end
if grpm > 0 and tonumber(redis.call('GET', KEYS[2]) or '0') >= grpm then return 6 end
if krpm > 0 then
  redis.call('INCR', KEYS[1])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
end
if grpm > 0 then
  redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
return 0
`;

/**
 * Settle one finished request: debit its cost and remember it as pending until Postgres holds it.
 * KEYS: balance, key-spent hash, pending hash, key tpm, group tpm (current minute), then the
 *       spend counter of each budget the request counts in (the bucket of its start).
 * ARGV: request id, cost nanos, key id, now ms, tokens, key tpm on (0/1), group tpm on (0/1),
 *       counter TTL seconds, ';' + the counters' tokens joined by ',' ('' = none), then each
 *       counter's TTL seconds (0 = none).
 * A request id already pending is not debited again (a retried settle). With no balance loaded
 * only the pending entry (`cost:ms:key id[;tokens]`) is written: the next seed subtracts it and
 * adds it to the counters its tokens name (see REBUILD).
 */
export const SETTLE = `
local cost = tonumber(ARGV[2])
local entry = ARGV[2] .. ':' .. ARGV[4] .. ':' .. ARGV[3] .. (ARGV[9] or '')
if cost > 0 and redis.call('HSETNX', KEYS[3], ARGV[1], entry) == 1 then
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('DECRBY', KEYS[1], ARGV[2])
    if ARGV[3] ~= '' then redis.call('HINCRBY', KEYS[2], ARGV[3], ARGV[2]) end
    for i = 6, #KEYS do
      redis.call('INCRBY', KEYS[i], ARGV[2])
      local ttl = tonumber(ARGV[4 + i])
      if ttl > 0 then redis.call('EXPIRE', KEYS[i], ttl) end
    end
  end
end
local tokens = tonumber(ARGV[5])
if tokens > 0 then
  if ARGV[6] == '1' then
    redis.call('INCRBY', KEYS[4], tokens)
    redis.call('EXPIRE', KEYS[4], ARGV[8])
  end
  if ARGV[7] == '1' then
    redis.call('INCRBY', KEYS[5], tokens)
    redis.call('EXPIRE', KEYS[5], ARGV[8])
  end
end
return 0
`;

/**
 * The head of a script that runs an account's waiting settles before its own operation: SETTLE
 * unchanged on each settle's slice of KEYS and ARGV (ARGV[1]: the number of settles, then per
 * settle its key count, argument count and arguments). Leaves `ki` and `ai` at the first key and
 * argument after the settles.
 */
export const SETTLES_FIRST = `
local function settle(KEYS, ARGV)
${SETTLE}
end
local ki, ai = 1, 2
for _ = 1, tonumber(ARGV[1]) do
  local nk, na = tonumber(ARGV[ai]), tonumber(ARGV[ai + 1])
  settle({unpack(KEYS, ki, ki + nk - 1)}, {unpack(ARGV, ai + 2, ai + 1 + na)})
  ki, ai = ki + nk, ai + 2 + na
end`;

/**
 * Several settles of one user, then optionally an admission of the same user, in one call: the
 * edge's settles wait briefly for the owner's next admission and ride in it, so a request costs
 * one script call instead of two (each call's keys, arguments and reply are a large share of the
 * edge's CPU and allocation). SETTLE and ADMIT run unchanged, as functions whose KEYS and ARGV are
 * their slice of this call's (Lua lets the parameters shadow the globals).
 * KEYS: each settle's keys, then the admission's.
 * ARGV: number of settles, then per settle its key count, argument count and arguments, then the
 *       admission's key count, argument count and arguments (absent: no admission).
 * Returns ADMIT's reply, or 0 without an admission. All keys are in the user's slot.
 */
export const SETTLE_THEN_ADMIT = `
local function admit(KEYS, ARGV)
${ADMIT}
end
${SETTLES_FIRST}
if ARGV[ai] == nil then return 0 end
local nk, na = tonumber(ARGV[ai]), tonumber(ARGV[ai + 1])
return admit({unpack(KEYS, ki, ki + nk - 1)}, {unpack(ARGV, ai + 2, ai + 1 + na)})
`;

/**
 * Rebuild a user's Redis copy from its durable state, atomically with respect to every edge:
 * balance = durable balance - charges still pending (and likewise each key's spend).
 * KEYS: balance, key-spent hash, pending hash, then the spend counters of the users' budget
 *       windows at now.
 * ARGV: mode ('seed': only when no balance is loaded; 'refresh': only when one is; 'force'),
 *       durable balance, now ms, pending max age ms, n, n request ids Postgres holds (settled),
 *       m, m pairs of key id and durable key spend, then per counter its token, durable value
 *       and TTL seconds (0 = none).
 *       n = -1 (and no ids): the caller has not asked Postgres about any pending id; with a
 *       pending entry present nothing is written, and the pending ids are returned for the caller
 *       to ask which Postgres settled and call again. A cold account seldom has one: its load
 *       then costs no read of them beforehand.
 * Pending entries Postgres holds are dropped; entries older than the max age are dropped as lost
 * (their log never reached Postgres, so they were never charged); the others are subtracted from
 * the balance and added to their key's spend and to the counters their tokens name.
 * Returns {1, balance} when written, {0, balance or false} when the mode said to leave it, and
 * {2, pending ids} when n was -1 and some pending id needs asking about.
 */
export const REBUILD = `
local mode = ARGV[1]
local exists = redis.call('EXISTS', KEYS[1]) == 1
if (mode == 'seed' and exists) or (mode == 'refresh' and not exists) then
  return {0, redis.call('GET', KEYS[1])}
end
local n = tonumber(ARGV[5])
if n < 0 then
  local ids = redis.call('HKEYS', KEYS[3])
  if #ids > 0 then return {2, ids} end
  n = 0
end
for i = 6, 5 + n do redis.call('HDEL', KEYS[3], ARGV[i]) end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[2])
local p = 7 + n
for i = 1, tonumber(ARGV[6 + n]) do
  redis.call('HSET', KEYS[2], ARGV[p], ARGV[p + 1])
  p = p + 2
end
local counters = {}
for i = 4, #KEYS do
  redis.call('SET', KEYS[i], ARGV[p + 1])
  if tonumber(ARGV[p + 2]) > 0 then redis.call('EXPIRE', KEYS[i], ARGV[p + 2]) end
  counters[ARGV[p]] = KEYS[i]
  p = p + 3
end
local now, maxAge = tonumber(ARGV[3]), tonumber(ARGV[4])
local entries = redis.call('HGETALL', KEYS[3])
for i = 1, #entries, 2 do
  local cost, at, key, tokens = string.match(entries[i + 1], '^(%d+):(%d+):([^;]*);?(.*)$')
  if not cost or now - tonumber(at) > maxAge then
    redis.call('HDEL', KEYS[3], entries[i])
  else
    redis.call('DECRBY', KEYS[1], cost)
    if key ~= '' then redis.call('HINCRBY', KEYS[2], key, cost) end
    for t in string.gmatch(tokens, '[^,]+') do
      if counters[t] then redis.call('INCRBY', counters[t], cost) end
    end
  end
end
return {1, redis.call('GET', KEYS[1])}
`;

/**
 * A grant reaching the Redis copy: added only when a balance is loaded (otherwise the next seed
 * reads it from Postgres). KEYS: balance. ARGV: nanos (may be negative). Returns the balance or false.
 */
export const ADD_IF_LOADED = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return redis.call('INCRBY', KEYS[1], ARGV[1])
`;

const shas = new Map<string, string>();
const sha1 = (script: string): string => {
  let sha = shas.get(script);
  if (sha === undefined) shas.set(script, (sha = createHash('sha1').update(script).digest('hex')));
  return sha;
};

/** EVALSHA, falling back to EVAL once per server: the script body crosses the wire rarely. */
export async function runScript(
  redis: RedisClient,
  script: string,
  keys: readonly string[],
  args: ReadonlyArray<string | number>,
): Promise<unknown> {
  try {
    return await redis.evalsha(sha1(script), keys.length, ...keys, ...args);
  } catch (err) {
    if (!(err as Error).message.startsWith('NOSCRIPT')) throw err;
    return redis.eval(script, keys.length, ...keys, ...args);
  }
}
