-- wrk script of `npm run bench`: POSTs one chat request and prints a summary the bench parses.
-- Usage: BENCH_AUTHORIZATION="Bearer sk-..." wrk -s bench/chat.lua <url> -- <body.json>
-- The body comes from a file the bench writes, so wrk and the TTFT client send the same bytes.

function init(args)
  local path = args[1]
  local file = assert(io.open(path or "", "rb"), "cannot open the body file: " .. tostring(path))
  wrk.body = file:read("*a")
  file:close()
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = assert(os.getenv("BENCH_AUTHORIZATION"), "BENCH_AUTHORIZATION is not set")
  -- More headers, one "name: value" a line (a peer gateway's routing headers).
  for name, value in string.gmatch(os.getenv("BENCH_HEADERS") or "", "([^:\n]+):%s*([^\n]*)") do
    wrk.headers[name] = value
  end
end

-- One line of key=value pairs; latencies in microseconds.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH_RESULT requests=%d duration_us=%d bytes=%d connect_errors=%d read_errors=%d"
      .. " write_errors=%d status_errors=%d timeouts=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
