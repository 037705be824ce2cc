-- wrk's script for archive-server (Benchmarks/load/run.sh): devices of many users pushing small
-- batches and pulling what the others pushed, through the real sync API.
--
--   wrk -t T -c C -d D -s load.lua URL -- TOKENS SEQS PUSH_PERCENT T CLOCK THINK
--
-- TOKENS: a line per user, user 1 first: the bearer tokens of its devices 1, 2 and 3. SEQS: "id seq" per line, each user's feed end
-- before the run. PUSH_PERCENT: the share of requests that are pushes (the rest are pulls).
-- T: wrk's threads. CLOCK: the devices' clock at the start, in milliseconds (run.sh gives each
-- run a later one, so that every run's stamps are newer than the last run's). THINK: milliseconds
-- each client waits between its requests on average (0: back to back), drawn at random from an
-- exponential distribution, as pgbench's -R schedules its clients' transactions (a Poisson
-- process): devices do not send in step. A fixed wait kept every client in step with the others
-- from the run's start, so the service met its clients in bursts of all of them at once, every
-- THINK milliseconds, where pgbench met the same rate spread out.
-- Each wrk thread serves its own users (user u belongs to thread (u - 1) % T), so it knows how far
-- each of its users' feeds has gone: a pull asks for the changes after the feed's end minus 20 (a
-- device that missed a few of its other devices' pushes). A push carries 5 changes to 5 distinct
-- favorites of the user (one in each fifth of IDs 1..1000), each stored with a stamp newer than any
-- before (the device's clock), so each replaces the held favorite: the merge rule's write path.
-- The same statements run under pgbench: push.sql and pull.sql.

local counter = 0

function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
end

local function lines(path)
  local result = {}
  local file = assert(io.open(path, "r"), "cannot read " .. path)
  for line in file:lines() do table.insert(result, line) end
  file:close()
  return result
end

local tokens, seq, mine = {}, {}, {}
local pushPercent, batch, stampMs, think = 80, 5, 0, 0
local refused = 0
local fields = '"photoUrl":"https://example.com/archive/photo.jpg","category":"洋食",'
  .. '"dishName":"チーズハンバーグ","shopName":"レストラン北斗","introduction":"肉汁あふれるハンバーグにとろけるチーズ。'
  .. '週末限定の人気メニューです。","storedAt":1790000000000'

function init(args)
  for _, line in ipairs(lines(args[1])) do
    local own = {}
    for token in line:gmatch("%S+") do table.insert(own, token) end
    table.insert(tokens, own)
  end
  for _, line in ipairs(lines(args[2])) do
    local id, value = line:match("^(%d+)%s+(%d+)$")
    if id then seq[tonumber(id)] = tonumber(value) end
  end
  pushPercent = tonumber(args[3] or "80")
  think = tonumber(args[6] or "0")
  local total = tonumber(args[4] or "1")
  for user = 1, #tokens do
    if (user - 1) % total == index then table.insert(mine, user) end
  end
  math.randomseed(tonumber(args[5]) + index)
  -- The devices' clocks: milliseconds, one more at each push (stamps only grow); threads apart.
  -- An hour apart: more pushes than a thread makes in a run, less than run.sh's 12 hours a run.
  stampMs = tonumber(args[5]) + index * 3600000
end

local function device(user, which)
  return string.format("%016x%016x", user, which)
end

function request()
  if #mine == 0 then error("this wrk thread has no users: fewer users than threads") end
  local user = mine[math.random(#mine)]
  local which = math.random(3)
  local headers = { ["Authorization"] = "Bearer " .. tokens[user][which] }
  if math.random(100) <= pushPercent then
    stampMs = stampMs + 1
    -- milliseconds << 16, as a decimal (a double: exact to 16 units, enough to grow).
    local stamp = string.format("%.0f", stampMs * 65536)
    local changes = {}
    for k = 0, batch - 1 do
      local id = k * 200 + math.random(200)
      changes[#changes + 1] = string.format('{"id":%d,"stamp":%s,"device":"%s","favorite":{%s}}', id, stamp, device(user, which), fields)
    end
    seq[user] = (seq[user] or 0) + batch
    headers["Content-Type"] = "application/json"
    local body = string.format('{"device":"%s","through":%d,"seen":0,"changes":[%s]}', device(user, which), seq[user], table.concat(changes, ","))
    return wrk.format("POST", "/v1/sync/push", headers, body)
  end
  local cursor = math.max(0, (seq[user] or 0) - 20)
  return wrk.format("GET", string.format("/v1/sync/pull?device=%s&cursor=%d&limit=100", device(user, which), cursor), headers)
end

function delay()
  if think == 0 then return 0 end
  return -think * math.log(1 - math.random())
end

function response(status, headers, body)
  if status ~= 200 then
    refused = refused + 1
    if refused <= 3 then io.stderr:write("archive-server answered " .. status .. ": " .. body .. "\n") end
  end
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local errors = summary.errors
  local failed = errors.connect + errors.read + errors.write + errors.timeout + errors.status
  io.write(string.format(
    'RESULT {"requests":%d,"seconds":%.3f,"rps":%.1f,"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f,"failed":%d,"non2xx":%d,"timeouts":%d}\n',
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    failed, errors.status, errors.timeout))
end
