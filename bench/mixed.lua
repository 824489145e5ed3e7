-- wrk's side of bench/wrk-mix.ts: replays a file of requests in order, one per line
-- (method, path, authorization, body; tab-separated), and prints the run's figures as JSON.
-- (`position` and `failed` are globals: done() reads them from each thread with thread:get.)
local queue = {}
position = 0
failed = 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(args[1]) do
    local method, path, authorization, body = line:match("^(%u+)\t([^\t]*)\t([^\t]*)\t(.*)$")
    local headers = { ["Accept"] = "application/json" }
    if authorization ~= "" then headers["Authorization"] = authorization end
    if body ~= "" then headers["Content-Type"] = "application/json" else body = nil end
    table.insert(queue, wrk.format(method, path, headers, body))
  end
end

function request()
  position = position % #queue + 1
  return queue[position]
end

function response(status)
  if status >= 500 then failed = failed + 1 end
end

function done(summary, latency, requests)
  local serverErrors, sent = 0, 0
  for _, thread in ipairs(threads) do
    serverErrors = serverErrors + thread:get("failed")
    sent = sent + thread:get("position")
  end
  local errors = summary.errors
  io.write(string.format(
    '{"requests":%d,"seconds":%.3f,"p50Us":%d,"p99Us":%d,"maxUs":%d,"non2xx":%d,"serverErrors":%d,"socketErrors":%d,"timeouts":%d,"sent":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99), latency.max,
    errors.status, serverErrors, errors.connect + errors.read + errors.write, errors.timeout, sent))
end
