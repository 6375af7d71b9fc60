#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for tests.

    llm-server.py SCRIPT.json LOG.jsonl [--expect-key KEY] -- COMMAND ARGS...

Starts the server on a free port, runs COMMAND with every "@PORT@" in its
arguments replaced by the port, stops the server and exits with COMMAND's
exit code. Each POST gets the next reply of SCRIPT's "replies" list; past the
end, HTTP 500. A reply is an object:

    {"tool_calls": [{"name": "apply_rewrites", "arguments": {...}}, ...],
     "content": "...", "source_files": {"source": "file"}}
        a chat completion (tool arguments may take a key's value from a file
        next to SCRIPT: "source_files" maps an argument name to a file name,
        applied to every replace_kernel call in order of "tool_calls")
    {"raw": "text"}           this body as is, HTTP 200
    {"status": 429, "retry_after": "0", "body": "..."}  an error status
    {"delay": 3, ...}         wait this long first (for time-outs)
    {"interrupt": 0.5, ...}   this long after the request arrived, send
                              SIGINT to COMMAND (Ctrl-C while the model
                              thinks, however long the client took to ask)
    {"repeat": true, ...}     serve this reply for every later request too

LOG gets one JSON line per request: its number, path, whether the
Authorization header carried the expected key ("auth": "ok" | "missing" |
"wrong"; the key itself is never logged) and the request body.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    argv = sys.argv[1:]
    sep = argv.index("--")
    opts, command = argv[:sep], argv[sep + 1:]
    script_path, log_path = opts[0], opts[1]
    expect_key = opts[opts.index("--expect-key") + 1] if "--expect-key" in opts else None
    with open(script_path) as f:
        script = json.load(f)
    base = os.path.dirname(os.path.abspath(script_path))
    replies = script["replies"]
    state = {"next": 0, "repeat": None, "proc": None}
    lock = threading.Lock()
    log = open(log_path, "w")

    def completion(reply, n):
        calls = []
        files = list(reply.get("source_files", []))
        for i, call in enumerate(reply.get("tool_calls", [])):
            args = call.get("arguments", {})
            if isinstance(args, dict) and call["name"] == "replace_kernel" and files:
                args = dict(args)
                with open(os.path.join(base, files.pop(0))) as f:
                    args["source"] = f.read()
            if not isinstance(args, str):
                args = json.dumps(args)
            calls.append({"id": "call_%d_%d" % (n, i), "type": "function",
                          "function": {"name": call["name"], "arguments": args}})
        message = {"role": "assistant", "content": reply.get("content")}
        if calls:
            message["tool_calls"] = calls
        return json.dumps({
            "id": "chatcmpl-%d" % n, "object": "chat.completion", "model": "scripted",
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 1000 + n, "completion_tokens": 100 + n,
                      "total_tokens": 1100 + 2 * n}})

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                n = state["next"]
                state["next"] += 1
                if state["repeat"] is not None:
                    reply = state["repeat"]
                elif n < len(replies):
                    reply = replies[n]
                    if reply.get("repeat"):
                        state["repeat"] = reply
                else:
                    reply = {"status": 500, "body": "script exhausted"}
                auth = self.headers.get("Authorization")
                if auth is None:
                    verdict = "missing"
                else:
                    verdict = "ok" if expect_key and auth == "Bearer " + expect_key else "wrong"
                try:
                    request = json.loads(body)
                except ValueError:
                    request = body.decode(errors="replace")
                log.write(json.dumps({"n": n + 1, "path": self.path, "auth": verdict,
                                      "request": request}) + "\n")
                log.flush()
            if reply.get("interrupt") is not None and state["proc"] is not None:
                proc = state["proc"]
                threading.Timer(reply["interrupt"],
                                lambda: proc.send_signal(signal.SIGINT)).start()
            if reply.get("delay"):
                time.sleep(reply["delay"])
            status = reply.get("status", 200)
            if "raw" in reply:
                text = reply["raw"]
            elif status != 200:
                text = reply.get("body", json.dumps({"error": {"message": "scripted %d" % status}}))
            else:
                text = completion(reply, n + 1)
            data = text.encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if "retry_after" in reply:
                    self.send_header("Retry-After", reply["retry_after"])
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a time-out test)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    command = [a.replace("@PORT@", str(port)) for a in command]
    try:
        state["proc"] = subprocess.Popen(command)
        rc = state["proc"].wait()
    finally:
        server.shutdown()
        log.close()
    sys.exit(rc)


if __name__ == "__main__":
    main()
