"""Stand-in for sglang.test.run_eval (sglang needs torch and a GPU, so it is not installable here): one real
chat completion through --base-url, then the result file in /tmp named as sglang names it
(``<eval_name>_<model>…json``), holding the arguments it got, the answer and a score."""

import argparse
import json
import os
import urllib.request

p = argparse.ArgumentParser()
p.add_argument("--base-url", required=True)
p.add_argument("--model", required=True)
p.add_argument("--eval-name", required=True)
args, rest = p.parse_known_args()
body = {"model": args.model, "messages": [{"role": "user", "content": "2+2?"}], "max_tokens": 3}
req = urllib.request.Request(
    args.base_url + "/v1/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
)
answer = json.load(urllib.request.urlopen(req, timeout=30))["choices"][0]["message"]["content"]
with open(f"/tmp/{args.eval_name}_{args.model}-standin{os.getpid()}.json", "w") as fh:
    json.dump({"score": 1.0, "eval_name": args.eval_name, "flags": rest, "answer": answer}, fh)
