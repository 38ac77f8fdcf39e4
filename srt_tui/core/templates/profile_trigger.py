# srtctl's profiling trigger: POST each worker leader's /start_profile window (standard library only:
# it runs in the job's container just before the benchmark); a worker that refuses is said, not fatal.
import json
import sys
import urllib.request

for t in json.loads(sys.argv[1]):
    body = {k: t[k] for k in ("output_dir", "start_step", "num_steps", "activities")}
    req = urllib.request.Request(t["url"], json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(req, timeout=30).read()
        print("profiling started:", t["url"], body, flush=True)
    except Exception as exc:
        print("profiling NOT started:", t["url"], exc, flush=True)
