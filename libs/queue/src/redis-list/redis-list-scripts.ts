/**
 * The Lua scripts of the Redis list queue (redis-list-queue.adapter.ts). Keys of a queue `<p>` (its prefix and name):
 * - `<p>:wait` list of message texts (pushed left, taken right: first in, first out; a message handed back goes right);
 * - `<p>:ids` hash id → 'q' (waiting, active or delayed) or 'f' (failed): the deduplication of jobIds;
 * - `<p>:delayed` zset of message texts by due time (ms, Redis's clock); `<p>:failed` hash id → message text;
 * - `<p>:consumers` set of consumer ids; `<p>:active:<c>` list of the messages consumer c took (moved there by
 *   BRPOPLPUSH, the take: one command); `<p>:alive:<c>` a key consumer c keeps alive while it lives;
 * - `<p>:dead` hash consumer id → when the upkeep first found it dead (ms): a dead consumer stays in the set a grace
 *   longer, so that a take it left blocked on the server (a frozen process's socket is still open) and that moves a
 *   message into its list after that is given back too.
 * A message text is `<stalls>|<id length>|<id><JSON of {id, name, payload, made (attempts used), max, backoff}>`:
 * the scripts read and change the stall count and read the id without decoding (or re-encoding) the payload.
 */

// KEYS: ids, wait, delayed, failed. ARGV: id, text, delay ms (0: none). 1 when added, 0 when the id was already queued.
export const ENQUEUE = `
if redis.call('HSETNX', KEYS[1], ARGV[1], 'q') == 0 then
  if redis.call('HGET', KEYS[1], ARGV[1]) ~= 'f' then return 0 end
  redis.call('HSET', KEYS[1], ARGV[1], 'q')
  redis.call('HDEL', KEYS[4], ARGV[1])
end
local delay = tonumber(ARGV[3])
if delay > 0 then
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[3], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + delay, ARGV[2])
else
  redis.call('LPUSH', KEYS[2], ARGV[2])
end
return 1
`;

// A delivery ended. KEYS: active list, ids, wait, delayed, failed. ARGV: taken text, id, verdict, next text, delay ms.
// verdict: 'done' (remove), 'again' (next text back to the queue: after delay ms, or at the front when 0),
// 'failed' (next text kept as failed).
export const SETTLE = `
if redis.call('LREM', KEYS[1], -1, ARGV[1]) == 0 then return 0 end
local verdict = ARGV[3]
if verdict == 'done' then
  redis.call('HDEL', KEYS[2], ARGV[2])
elseif verdict == 'again' then
  local delay = tonumber(ARGV[5])
  if delay > 0 then
    local t = redis.call('TIME')
    redis.call('ZADD', KEYS[4], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + delay, ARGV[4])
  else
    redis.call('RPUSH', KEYS[3], ARGV[4])
  end
else
  redis.call('HSET', KEYS[2], ARGV[2], 'f')
  redis.call('HSET', KEYS[5], ARGV[2], ARGV[4])
end
return 1
`;

// Upkeep, run by every consumer now and then. KEYS: wait, delayed, consumers, ids, failed. ARGV: queue prefix,
// max stalls, consumer id to give back whole (its own on a clean stop; '' for none), grace ms.
// Due delayed messages go to the queue; the messages of a consumer whose alive key is gone (it died) go back to the
// front of the queue with one more stall, or fail once they stalled more than max stalls times. A dead consumer leaves
// the set only once it has been dead for the grace (longer than a blocked take lasts on the server): until then a take
// it left blocked, which may still move a message into its list, is looked at again by every upkeep.
export const UPKEEP = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)
for _, text in ipairs(due) do
  redis.call('LPUSH', KEYS[1], text)
  redis.call('ZREM', KEYS[2], text)
end
local moved = 0
local dead = ARGV[1] .. ':dead'
for _, c in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  local own = c == ARGV[3]
  if own or redis.call('EXISTS', ARGV[1] .. ':alive:' .. c) == 0 then
    local list = ARGV[1] .. ':active:' .. c
    for _, text in ipairs(redis.call('LRANGE', list, 0, -1)) do
      local stalls, len, rest = string.match(text, '^(%d+)|(%d+)|(.*)$')
      stalls = tonumber(stalls)
      if not own then stalls = stalls + 1 end
      local again = stalls .. '|' .. len .. '|' .. rest
      if stalls > tonumber(ARGV[2]) then
        local id = string.sub(rest, 1, tonumber(len))
        redis.call('HSET', KEYS[4], id, 'f')
        redis.call('HSET', KEYS[5], id, again)
      else
        redis.call('RPUSH', KEYS[1], again)
      end
      moved = moved + 1
    end
    redis.call('DEL', list)
    if own then
      redis.call('SREM', KEYS[3], c)
      redis.call('DEL', ARGV[1] .. ':alive:' .. c)
      redis.call('HDEL', dead, c)
    else
      local since = tonumber(redis.call('HGET', dead, c))
      if not since then
        redis.call('HSET', dead, c, now)
      elseif now - since > tonumber(ARGV[4]) then
        redis.call('SREM', KEYS[3], c)
        redis.call('HDEL', dead, c)
      end
    end
  end
end
return {#due, moved}
`;

// A consumer's blocking connection dropped (a reconnection, a socket timeout after the process was frozen): a take
// whose answer was lost on the way has moved a message into the consumer's list that it never received. KEYS: the
// consumer's active list, wait. ARGV: the texts the consumer is running (each once per delivery). Every other text
// of the list goes back to the front of the queue as it was (it never ran: no stall counted). Returns how many.
export const RECLAIM = `
local running = {}
for _, text in ipairs(ARGV) do running[text] = (running[text] or 0) + 1 end
local moved = 0
for _, text in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if (running[text] or 0) > 0 then
    running[text] = running[text] - 1
  else
    redis.call('LREM', KEYS[1], 1, text)
    redis.call('RPUSH', KEYS[2], text)
    moved = moved + 1
  end
end
return moved
`;

// KEYS: wait, delayed, failed, consumers. ARGV: queue prefix. {waiting, active, delayed, failed}
export const COUNTS = `
local active = 0
for _, c in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  active = active + redis.call('LLEN', ARGV[1] .. ':active:' .. c)
end
return {redis.call('LLEN', KEYS[1]), active, redis.call('ZCARD', KEYS[2]), redis.call('HLEN', KEYS[3])}
`;
