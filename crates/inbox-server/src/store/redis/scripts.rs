//! The Lua scripts behind every mutation. A script runs atomically in Redis, so each one is a
//! whole step: no other worker can observe or interleave with half of it. That is what makes
//! answers single-winner and expiry sweeps safe to run on every worker at once.

use redis::Script;

/// The events stream. `tail` is the id of its newest entry ("0-0" while it is empty).
/// `append` appends one event, trimmed to about `maxlen` entries (`MAXLEN ~`: Redis trims
/// whole radix-tree nodes, cheaply). Each entry carries `p`, the id of the entry before it, so
/// a reader can tell exactly which ids the trimming took: see `events_after`.
const STREAM: &str = r#"
local function tail(stream)
  local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)
  if last[1] then return last[1][1] end
  return '0-0'
end
local function append(stream, maxlen, name, data)
  return redis.call('XADD', stream, 'MAXLEN', '~', maxlen, '*', 'p', tail(stream), 'n', name, 'd', data)
end
"#;

/// Inline media: blob `i` of `n` (from 1) is stored under `KEYS[kbase + i]`, its content type
/// and bytes taken from `ARGV[abase + 2i]` and `ARGV[abase + 2i + 1]`.
const MEDIA: &str = r#"
local function store_media(n, kbase, abase)
  for i = 1, n do
    redis.call('HSET', KEYS[kbase + i], 'ct', ARGV[abase + 2 * i], 'bytes', ARGV[abase + 1 + 2 * i])
  end
end
"#;

/// One new pending question, as a lone ask (INSERT) and each question of a park (PARK_INSERT)
/// store it: its hash (`body`, `status`, `rank`), its place in the indexes "all" and "pending"
/// and, with a deadline, the due set, its ticket, its media (see MEDIA) and its `add` event.
/// Both scripts take the rank counter, the two indexes, the due set and the events as KEYS[2]
/// to KEYS[6]. The question's own keys start at KEYS[k]: its interaction, its ticket (any key
/// when none), one per media blob; its args at ARGV[a]: id, body, deadline in unix ms (or ""),
/// ticket record (or ""), ticket expiry in unix ms, media count, then (content type, bytes)
/// per blob (`RedisStore::push_question`). Returns the id of the `add` event.
const QUESTION: &str = r#"
local function store_question(maxlen, k, a)
  local id, body = ARGV[a], ARGV[a + 1]
  local rank = redis.call('INCR', KEYS[2])
  redis.call('HSET', KEYS[k], 'body', body, 'status', 'pending', 'rank', rank)
  redis.call('ZADD', KEYS[3], rank, id)
  redis.call('ZADD', KEYS[4], rank, id)
  if ARGV[a + 2] ~= '' then redis.call('ZADD', KEYS[5], ARGV[a + 2], id) end
  if ARGV[a + 3] ~= '' then redis.call('SET', KEYS[k + 1], ARGV[a + 3], 'PXAT', ARGV[a + 4]) end
  store_media(tonumber(ARGV[a + 5]), k + 1, a + 4)
  return append(KEYS[6], maxlen, 'add', body)
end
"#;

/// Idempotency records: a hash per scope with `f:<key>` (the request's fingerprint) and
/// `b:<key>` (what it returned). `earlier` is the record of `key` ({fingerprint, body}), nil
/// for a new key or none (""); `replay` the reply to repeat for it, {"replayed", body} for the
/// same fingerprint or {"conflict"} for another, nil when there is none; `remember` keeps this
/// request's record (nothing without a key).
const IDEMPOTENCY: &str = r#"
local function earlier(records, key)
  if key == '' then return nil end
  local found = redis.call('HMGET', records, 'f:' .. key, 'b:' .. key)
  if not found[1] then return nil end
  return found
end
local function replay(records, key, fingerprint)
  local found = earlier(records, key)
  if not found then return nil end
  if found[1] == fingerprint then return {'replayed', found[2]} end
  return {'conflict'}
end
local function remember(records, key, fingerprint, body)
  if key ~= '' then redis.call('HSET', records, 'f:' .. key, fingerprint, 'b:' .. key, body) end
end
"#;

/// One page of a sorted set of ids by rank, newest first, below `below` ("+inf" for the first
/// page, "(<rank>" after), and the stream's tail id, read at the same moment: {tail id, rank,
/// record, rank, record, ...}, each record as `read(id)` gives it ("" when it is gone). The
/// records are read by key names built in the script, which is fine on a single Redis (not on
/// a cluster).
const PAGE_FN: &str = r#"
local function page(index, stream, below, count, read)
  local out = {tail(stream)}
  local ids = redis.call('ZREVRANGEBYSCORE', index, below, '-inf', 'WITHSCORES', 'LIMIT', 0, count)
  for i = 1, #ids, 2 do
    out[#out + 1] = ids[i + 1]
    out[#out + 1] = read(ids[i]) or ''
  end
  return out
end
"#;

/// KEYS: the asker's pending counter, rank counter, index "all", index "pending", due set,
/// events, then the question's keys (see QUESTION).
/// ARGV: maxlen, the asker's pending limit, then the question's args (see QUESTION).
/// Returns {"added", id of the `add` event} | {"at_limit"}.
const INSERT: &str = r#"
if redis.call('EXISTS', KEYS[7]) == 1 then
  return redis.error_reply('ERR interaction id already stored')
end
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[2]) then
  return {'at_limit'}
end
redis.call('INCR', KEYS[1])
return {'added', store_question(ARGV[1], 7, 3)}
"#;

/// Moves a pending interaction to a final state; the status check is the single-winner rule.
/// KEYS: interaction, index "pending", index of the new status, due set, events, idempotency,
/// the asker's pending counter, the resolved set, the question's park (any key when it has
/// none), the deliveries queue, the AG-UI turn queue, the AG-UI attempts hash, the set of
/// settled parks.
/// ARGV: id, new status, new body (or "" when the caller had nothing to build it from),
/// event name, event data, maxlen, idempotency key (or ""), fingerprint, now in unix ms (or ""
/// for the expiry sweep, which is what settles a question past its deadline), the moment it is
/// settled in unix ms (the resolved set's score), the park resolution JSON (or "" when the
/// question is in no park), the park id.
/// Returns {"resolved", event id, "park_resolved" | ""} | {"replayed", body} | {"conflict"} | {"final", body}
/// | {"not_found"} | {"past_deadline"} | {"stale"} (pending after all: the caller rebuilds and
/// retries).
const SETTLE: &str = r#"
local replayed = replay(KEYS[6], ARGV[7], ARGV[8])
if replayed then return replayed end
local current = redis.call('HMGET', KEYS[1], 'status', 'body', 'rank')
if not current[1] then return {'not_found'} end
if current[1] ~= 'pending' then return {'final', current[2]} end
if ARGV[9] ~= '' then
  local deadline = redis.call('ZSCORE', KEYS[4], ARGV[1])
  if deadline and tonumber(deadline) <= tonumber(ARGV[9]) then return {'past_deadline'} end
end
if ARGV[3] == '' then return {'stale'} end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'body', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], current[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
if tonumber(redis.call('GET', KEYS[7]) or '0') > 0 then redis.call('DECR', KEYS[7]) end
redis.call('ZADD', KEYS[8], ARGV[10], ARGV[1])
local event_id = append(KEYS[5], ARGV[6], ARGV[4], ARGV[5])
remember(KEYS[6], ARGV[7], ARGV[8], ARGV[3])
-- parks: record the resolution on the question's park in this same script (see PARK_RECORD).
local park_moved = park_record(KEYS[9], ARGV[1], ARGV[11], ARGV[10], KEYS[10], ARGV[12], KEYS[11], KEYS[12], KEYS[13])
return {'resolved', event_id, park_moved}
"#;

/// Records a settled question's resolution on its park: fills the question's slot once, counts
/// it, and with the last one moves the park `parked → resolved`. Called only from inside SETTLE,
/// so the question's final status and its park slot are written by one atomic script and
/// exactly one script run sees the count reach the total.
/// Returns "park_resolved" from the run that moved the park, "" from every other.
const PARK_RECORD: &str = r#"
local function park_record(park, id, resolution, now, deliveries, park_id, agui_turns, agui_attempts, settled)
  if resolution == '' or redis.call('EXISTS', park) == 0 then return '' end
  if redis.call('HSETNX', park, 'r:' .. id, resolution) == 0 then return '' end
  local count = redis.call('HINCRBY', park, 'resolved', 1)
  local state = redis.call('HMGET', park, 'status', 'total', 'kind')
  if state[1] == 'parked' and count == tonumber(state[2]) then
    redis.call('HSET', park, 'status', 'resolved', 'resolved_at', now)
    -- Indexed for pruning once its retention has passed (PARK_PRUNE).
    redis.call('ZADD', settled, now, park_id)
    -- A webhook park's resume is queued by the same script: durable, and queued once.
    if state[3] == 'webhook' then redis.call('ZADD', deliveries, now, park_id) end
    -- An AG-UI park's resume turn, the same way (its run id was kept by PARK_INSERT).
    if state[3] == 'agui' then
      local run = redis.call('HGET', park, 'run')
      if run then
        redis.call('ZADD', agui_turns, now, run)
        redis.call('HDEL', agui_attempts, run)
      end
    end
    return 'park_resolved'
  end
  return ''
end
"#;

/// Stores a park and all its questions. Every id is checked before anything is written: a
/// script that fails half-way would leave its earlier writes (Redis does not roll back), so
/// the one refusal it can meet comes first.
/// KEYS: park, rank counter, index "all", index "pending", due set, events, the asker's
/// pending counter, then each question's keys (see QUESTION).
/// ARGV: park body, question count, maxlen, the asker's pending limit, then each question's
/// args (see QUESTION).
/// Returns "ok" | "at_limit" (the asker's pending questions and these would pass the limit).
const PARK_INSERT: &str = r#"
local n = tonumber(ARGV[2])
if tonumber(redis.call('GET', KEYS[7]) or '0') + n > tonumber(ARGV[4]) then
  return 'at_limit'
end
local plan = {}
local k, a = 8, 5
for q = 1, n do
  local media = tonumber(ARGV[a + 5])
  plan[q] = {k, a}
  if redis.call('EXISTS', KEYS[k]) == 1 then
    return redis.error_reply('ERR interaction id already stored')
  end
  k = k + 2 + media
  a = a + 6 + 2 * media
end
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('ERR park id already stored') end
local continuation = cjson.decode(ARGV[1])['continuation']
redis.call('HSET', KEYS[1], 'body', ARGV[1], 'status', 'parked', 'total', n, 'resolved', 0, 'kind', continuation['kind'], 'attempts', 0)
if continuation['kind'] == 'agui' then redis.call('HSET', KEYS[1], 'run', continuation['run_id']) end
redis.call('INCRBY', KEYS[7], n)
for q = 1, n do
  local k, a = plan[q][1], plan[q][2]
  store_question(ARGV[3], k, a)
end
return 'ok'
"#;

/// Takes a resolved park's resume: only `resolved` moves (to `resumed`), so the first claim
/// wins; a later one with the winner's key and fingerprint is a replay.
/// KEYS: park. ARGV: idempotency key (or ""), fingerprint, now in unix ms.
/// Returns "claimed" | "replayed" | "already_claimed" | "not_resolved" | "not_found".
const PARK_CLAIM: &str = r#"
local state = redis.call('HMGET', KEYS[1], 'status', 'claim_k', 'claim_f')
if not state[1] then return 'not_found' end
if state[1] == 'parked' then return 'not_resolved' end
if state[1] == 'resolved' then
  redis.call('HSET', KEYS[1], 'status', 'resumed', 'resumed_at', ARGV[3], 'claim_k', ARGV[1], 'claim_f', ARGV[2])
  return 'claimed'
end
if ARGV[1] ~= '' and state[2] == ARGV[1] and state[3] == ARGV[2] then return 'replayed' end
return 'already_claimed'
"#;

/// Deletes a resolved interaction and everything kept beside it, and announces it.
/// KEYS: interaction, index "all", index of its status, idempotency, resolved set, events,
/// then one key per media blob. ARGV: id, maxlen, the `removed` event data.
/// Returns 1 when it was pruned, 0 when it was not there or still pending (then it only
/// leaves the resolved set).
const PRUNE: &str = r#"
local status = redis.call('HGET', KEYS[1], 'status')
redis.call('ZREM', KEYS[5], ARGV[1])
if not status or status == 'pending' then return 0 end
redis.call('DEL', KEYS[1], KEYS[4])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
for i = 7, #KEYS do redis.call('DEL', KEYS[i]) end
append(KEYS[6], ARGV[2], 'removed', ARGV[3])
return 1
"#;

/// Leases the earliest due delivery: a lease key with the dispatcher's token (`PX`), and the
/// queue score moved to the lease's end so nobody else takes it meanwhile.
/// KEYS: deliveries. ARGV: now in unix ms, lease in ms, token, the lease key prefix.
/// Returns the park id, or "" when nothing is due.
const DELIVERY_LEASE: &str = r#"
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if not due[1] then return '' end
redis.call('SET', ARGV[4] .. due[1], ARGV[3], 'PX', ARGV[2])
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), due[1])
return due[1]
"#;

/// Applies a delivery's result while the caller still holds its lease.
/// KEYS: deliveries, the lease key, the park. ARGV: token, "delivered" | "retry" | "failed",
/// now in unix ms, retry at in unix ms, error text, park id.
/// Returns "ok", or "stale" when the lease was lost (nothing changed).
const DELIVERY_FINISH: &str = r#"
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 'stale' end
redis.call('HINCRBY', KEYS[3], 'attempts', 1)
if ARGV[2] == 'delivered' then
  redis.call('HSET', KEYS[3], 'status', 'resumed', 'resumed_at', ARGV[3])
  redis.call('HDEL', KEYS[3], 'last_error')
  redis.call('ZREM', KEYS[1], ARGV[6])
elseif ARGV[2] == 'retry' then
  redis.call('HSET', KEYS[3], 'last_error', ARGV[5])
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[6])
else
  redis.call('HSET', KEYS[3], 'status', 'failed', 'last_error', ARGV[5])
  redis.call('ZREM', KEYS[1], ARGV[6])
end
redis.call('DEL', KEYS[2])
return 'ok'
"#;

/// `failed → resolved` with attempts reset, queued again. KEYS: park, deliveries.
/// ARGV: park id, now in unix ms. Returns 1 when it was `failed`, else 0.
const DELIVERY_REDELIVER: &str = r#"
if redis.call('HGET', KEYS[1], 'status') ~= 'failed' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'resolved', 'attempts', 0)
redis.call('HDEL', KEYS[1], 'last_error')
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
"#;

/// Stores an AG-UI run and queues its first turn.
/// KEYS: the run, the turn queue. ARGV: run id, body, input, headers, now in unix ms.
const AGUI_INSERT: &str = r#"
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('ERR run id already stored') end
redis.call('HSET', KEYS[1], 'body', ARGV[2], 'input', ARGV[3], 'headers', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
return 'ok'
"#;

/// Reports a leased turn (the caller checked the lease in this same script).
/// Keys and args are passed as values so the interrupt script can hand over its tail.
const AGUI_FINISH_FN: &str = r#"
local function agui_finish(turns, lease, run, attempts, resumed_park, outcome, body, at, id, resumed, now)
  if resumed == '1' and redis.call('HGET', resumed_park, 'status') == 'resolved' then
    redis.call('HSET', resumed_park, 'status', 'resumed', 'resumed_at', now)
  end
  if outcome == 'retry' then
    redis.call('ZADD', turns, at, id)
    redis.call('HINCRBY', attempts, id, 1)
  else
    redis.call('ZREM', turns, id)
    redis.call('HDEL', attempts, id)
  end
  redis.call('HSET', run, 'body', body)
  redis.call('HDEL', run, 'live')
  redis.call('DEL', lease)
  if outcome == 'final' then
    -- `<prefix>:agui:finished`, named from the queue's key `<prefix>:agui:turns` (one Redis).
    redis.call('ZADD', string.sub(turns, 1, -6) .. 'finished', now, id)
  end
  return 'ok'
end
"#;

/// A turn that ended without opening a park.
/// KEYS: turn queue, the lease key, the run, attempts hash, the park it resumed (any key).
/// ARGV: token, "final" | "done" | "retry", run body, retry at (unix ms), run id, "1" when the park is
/// resumed, now (unix ms). Returns "ok" | "stale" (the lease was lost; nothing changed).
const AGUI_FINISH: &str = r#"
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 'stale' end
return agui_finish(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7])
"#;

/// A turn that paused: PARK_INSERT's keys and args first (as that script takes them), then
/// AGUI_FINISH's five keys and seven args at the tail. The lease is checked before anything is
/// written, the park is stored whole or refused, and the run is written in the same script.
const AGUI_INTERRUPT: &str = r#"
local nk, na = #KEYS, #ARGV
if redis.call('GET', KEYS[nk - 3]) ~= ARGV[na - 6] then return 'stale' end
local inserted = park_insert()
if inserted ~= 'ok' then return inserted end
return agui_finish(KEYS[nk - 4], KEYS[nk - 3], KEYS[nk - 2], KEYS[nk - 1], KEYS[nk],
  ARGV[na - 5], ARGV[na - 4], ARGV[na - 3], ARGV[na - 2], ARGV[na - 1], ARGV[na])
"#;

/// A leased turn's run as it streams, kept in `live` (what reads show; a turn builds on `body`,
/// so a turn whose worker died adds nothing twice). KEYS: the lease key, the run. ARGV: token, run body.
/// Returns 1 when written, 0 when the lease is not held.
const AGUI_PROGRESS: &str = r#"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], 'live', ARGV[2])
return 1
"#;

/// A failed run back to running (compare-and-set on its body) and its turn queued.
/// KEYS: the run, turn queue, attempts hash. ARGV: body read, new body, run id, now.
/// Returns 1 when it moved, 0 when the body changed meanwhile.
const AGUI_RETRY: &str = r#"
if redis.call('HGET', KEYS[1], 'body') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'body', ARGV[2])
redis.call('HDEL', KEYS[1], 'live')
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
redis.call('HDEL', KEYS[3], ARGV[3])
redis.call('ZREM', string.sub(KEYS[2], 1, -6) .. 'finished', ARGV[3])
return 1
"#;

/// Deletes a run that ended, with its input and headers (one hash), if it is still final and
/// not queued. KEYS: the run, finished set, turn queue, attempts hash. ARGV: run id.
/// Returns 1 when it was pruned, 0 otherwise (it only leaves the finished set).
const AGUI_PRUNE: &str = r#"
redis.call('ZREM', KEYS[2], ARGV[1])
local body = redis.call('HGET', KEYS[1], 'body')
if not body or redis.call('ZSCORE', KEYS[3], ARGV[1]) then return 0 end
local status = cjson.decode(body).status
if status ~= 'succeeded' and status ~= 'failed' and status ~= 'cancelled' then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[4], ARGV[1])
return 1
"#;

/// One page of interactions and the stream's tail id (see PAGE_FN).
/// KEYS: the index to page through, events. ARGV: the exclusive upper rank, how many to fetch,
/// the interaction key prefix. Returns {tail id, rank, body, rank, body, ...}.
const PAGE: &str = r#"
return page(KEYS[1], KEYS[2], ARGV[1], ARGV[2], function(id)
  return redis.call('HGET', ARGV[3] .. id, 'body')
end)
"#;

/// A notification's whole JSON from its hash (see `Keys::notification`), or nil when absent:
/// string concatenation of JSON texts Rust wrote, so no user JSON is parsed or re-encoded here.
const NT_JSON: &str = r#"
local function nt_json(key)
  local f = redis.call('HMGET', key, 'head', 'read_at', 'dismissed_at', 'count')
  if not f[1] then return nil end
  return f[1] .. ',"read_at":' .. (f[2] or 'null') .. ',"dismissed_at":' .. (f[3] or 'null')
    .. ',"submissions":' .. (f[4] or '0') .. '}'
end
"#;

/// Stores a notification under its asker's outstanding cap, with an optional idempotency record.
/// KEYS: notification, rank counter, outstanding set, the asker's outstanding counter, events,
/// the asker's create-idempotency hash, then one key per media blob.
/// ARGV: id, head JSON, asker, maxlen, limit, idempotency key (or ""), fingerprint, the
/// notification key prefix, media ids (space-separated), media count, then (content type,
/// bytes) per blob.
/// Returns {"created", json} | {"replayed", json} | {"conflict"} | {"at_limit"}.
const NT_INSERT: &str = r#"
local before = earlier(KEYS[6], ARGV[6])
if before then
  if before[1] ~= ARGV[7] then return {'conflict'} end
  local body = nt_json(ARGV[8] .. before[2])
  if body then return {'replayed', body} end
end
if tonumber(redis.call('GET', KEYS[4]) or '0') >= tonumber(ARGV[5]) then return {'at_limit'} end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.error_reply('ERR notification id already stored')
end
local rank = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'head', ARGV[2], 'asker', ARGV[3], 'rank', rank, 'count', 0,
  'media', ARGV[9], 'idem', ARGV[6])
redis.call('ZADD', KEYS[3], rank, ARGV[1])
redis.call('INCR', KEYS[4])
store_media(tonumber(ARGV[10]), 6, 9)
remember(KEYS[6], ARGV[6], ARGV[7], ARGV[1])
local body = nt_json(KEYS[1])
append(KEYS[5], ARGV[4], 'notification_added', body)
return {'created', body}
"#;

/// Sets `read_at` or `dismissed_at` once; dismissing also reads, leaves the outstanding set
/// and counter and enters the dismissed set.
/// KEYS: notification, outstanding set, dismissed set, events.
/// ARGV: "read_at" | "dismissed_at", now as a JSON string, now in unix ms, maxlen, id, the
/// outstanding counter key prefix.
/// Returns {"changed", json} | {"same", json} | {"not_found"}.
const NT_MARK: &str = r#"
local asker = redis.call('HGET', KEYS[1], 'asker')
if not asker then return {'not_found'} end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {'same', nt_json(KEYS[1])} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[1] == 'dismissed_at' then
  redis.call('HSETNX', KEYS[1], 'read_at', ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[5])
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5])
  local out = ARGV[6] .. asker
  if tonumber(redis.call('GET', out) or '0') > 0 then redis.call('DECR', out) end
end
local body = nt_json(KEYS[1])
append(KEYS[4], ARGV[4], 'notification_updated', body)
return {'changed', body}
"#;

/// Stores a submission of an outstanding notification under its cap, giving it the next
/// ordinal. KEYS: notification, its submissions list, its submit-idempotency hash, events.
/// ARGV: submission JSON up to its ordinal, idempotency key (or ""), fingerprint, limit, maxlen.
/// Returns {"submitted", json} | {"replayed", json} | {"conflict"} | {"at_limit"} | {"not_found"}.
const NT_SUBMIT: &str = r#"
local replayed = replay(KEYS[3], ARGV[2], ARGV[3])
if replayed then return replayed end
local state = redis.call('HMGET', KEYS[1], 'asker', 'dismissed_at', 'count')
if not state[1] or state[2] then return {'not_found'} end
if tonumber(state[3] or '0') >= tonumber(ARGV[4]) then return {'at_limit'} end
local ordinal = redis.call('HINCRBY', KEYS[1], 'count', 1)
local body = ARGV[1] .. ',"ordinal":' .. ordinal .. '}'
redis.call('RPUSH', KEYS[2], body)
remember(KEYS[3], ARGV[2], ARGV[3], body)
append(KEYS[4], ARGV[5], 'submitted', body)
append(KEYS[4], ARGV[5], 'notification_updated', nt_json(KEYS[1]))
return {'submitted', body}
"#;

/// Outstanding notifications and the stream's tail id (see PAGE_FN).
/// KEYS: outstanding set, events. ARGV: exclusive upper rank, how many, the notification key
/// prefix. Returns {tail id, rank, json, rank, json, ...}.
const NT_PAGE: &str = r#"
return page(KEYS[1], KEYS[2], ARGV[1], ARGV[2], function(id)
  return nt_json(ARGV[3] .. id)
end)
"#;

/// Deletes a dismissed notification with its media, submissions and idempotency records.
/// KEYS: notification, dismissed set, submissions list, submit-idempotency hash.
/// ARGV: id, media key prefix, create-idempotency key prefix. Returns 1 when pruned, else 0.
const NT_PRUNE: &str = r#"
redis.call('ZREM', KEYS[2], ARGV[1])
local f = redis.call('HMGET', KEYS[1], 'dismissed_at', 'media', 'asker', 'idem')
if not f[1] then return 0 end
if f[2] then
  for media_id in string.gmatch(f[2], '%S+') do redis.call('DEL', ARGV[2] .. media_id) end
end
if f[4] and f[4] ~= '' then
  redis.call('HDEL', ARGV[3] .. f[3], 'f:' .. f[4], 'b:' .. f[4])
end
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4])
return 1
"#;

/// Deletes a settled park (its hash holds its resolutions) and its lease, once the later of
/// its `resolved_at` and `resumed_at` is at or before the cut-off. A park whose webhook resume
/// is still queued is kept (its delivery is not over), and re-scored so it does not hold up
/// the batch; one resumed later than its index says is re-scored to that time.
/// KEYS: park, deliveries, settled parks, the park's lease. ARGV: park id, cut-off in unix ms,
/// now in unix ms. Returns 1 when it was pruned, else 0.
const PARK_PRUNE: &str = r#"
local s = redis.call('HMGET', KEYS[1], 'status', 'resolved_at', 'resumed_at')
if not s[1] or s[1] == 'parked' then
  redis.call('ZREM', KEYS[3], ARGV[1])
  return 0
end
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
  return 0
end
local at = tonumber(s[3] or s[2] or '0')
if at > tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[3], at, ARGV[1])
  return 0
end
redis.call('DEL', KEYS[1], KEYS[4])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
"#;

/// Declares the scripts, each name once with the fragments it is spliced from, in order (a
/// fragment defines the Lua functions the later parts call).
macro_rules! scripts {
    ($($(#[$doc:meta])* $name:ident = $($part:expr),+;)*) => {
        /// Compiled once per store; `invoke_async` loads a script again after a Redis restart.
        pub struct Scripts {
            $($(#[$doc])* pub $name: Script,)*
        }

        impl Scripts {
            pub fn new() -> Scripts {
                Scripts {
                    $($name: Script::new(&[$($part),+].concat()),)*
                }
            }
        }
    };
}

scripts! {
    insert = STREAM, MEDIA, QUESTION, INSERT;
    settle = STREAM, IDEMPOTENCY, PARK_RECORD, SETTLE;
    prune = STREAM, PRUNE;
    page = STREAM, PAGE_FN, PAGE;
    park_insert = STREAM, MEDIA, QUESTION, PARK_INSERT;
    park_claim = PARK_CLAIM;
    delivery_lease = DELIVERY_LEASE;
    delivery_finish = DELIVERY_FINISH;
    delivery_redeliver = DELIVERY_REDELIVER;
    nt_insert = STREAM, MEDIA, IDEMPOTENCY, NT_JSON, NT_INSERT;
    nt_mark = STREAM, NT_JSON, NT_MARK;
    nt_submit = STREAM, IDEMPOTENCY, NT_JSON, NT_SUBMIT;
    nt_page = STREAM, NT_JSON, PAGE_FN, NT_PAGE;
    nt_prune = NT_PRUNE;
    agui_insert = AGUI_INSERT;
    agui_finish = AGUI_FINISH_FN, AGUI_FINISH;
    /// PARK_INSERT as a function: its refusals come before its writes, so returning one from
    /// there leaves nothing behind.
    agui_interrupt = STREAM, MEDIA, QUESTION, "local function park_insert()\n", PARK_INSERT,
        "\nend\n", AGUI_FINISH_FN, AGUI_INTERRUPT;
    agui_retry = AGUI_RETRY;
    agui_progress = AGUI_PROGRESS;
    agui_prune = AGUI_PRUNE;
    park_prune = PARK_PRUNE;
}
