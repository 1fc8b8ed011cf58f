#!/usr/bin/env python3
"""A fake Hugging Face Hub on loopback for the browser tests (tests/web_hub.rs):
the tests never reach the real Hub. Every answer allows any origin (CORS), as
the Hub does. Repositories:
  org/tiny-llama   a valid config; the model API says twice our count
  org/gated        401 (a gated model)
  org/missing      404
  org/malformed    200 with text that is not JSON
  org/absurd       200 with a config of 10^6 layers
  org/huge         200 declaring a 30 MB body
  org/slow         answers after 12 s (the app gives up after 10 s)
    python3 scripts/fake_hub.py PORT
"""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TINY = {
    "model_type": "llama", "hidden_size": 256, "intermediate_size": 688,
    "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
    "vocab_size": 1000, "max_position_embeddings": 2048, "tie_word_embeddings": False,
}
# embeddings + head 2·1000·256, per layer q,o 256² + k,v 2·256·128 + MLP 3·256·688
# + 2 norms, final norm: the app's own count, doubled for the model API.
OURS = 2 * 1000 * 256 + 4 * (2 * 256 * 256 + 2 * 256 * 128 + 3 * 256 * 688 + 2 * 256) + 256


class Hub(BaseHTTPRequestHandler):
    def send(self, status, body=b"", content_type="application/json", length=None):
        self.send_response(status)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/api/models/org/tiny-llama":
            return self.send(200, json.dumps({"safetensors": {"total": 2 * OURS}}).encode())
        repo = path.removesuffix("/resolve/main/config.json").strip("/")
        if repo == "org/tiny-llama":
            return self.send(200, json.dumps(TINY).encode())
        if repo == "org/gated":
            return self.send(401, b'{"error":"Access to model org/gated is restricted."}')
        if repo == "org/malformed":
            return self.send(200, b"{not json", "text/plain")
        if repo == "org/absurd":
            return self.send(200, json.dumps(dict(TINY, num_hidden_layers=10**6)).encode())
        if repo == "org/huge":
            return self.send(200, b"{" + b" " * 65536, length=30 * 2**20)
        if repo == "org/slow":
            time.sleep(12)
            return self.send(200, json.dumps(TINY).encode())
        return self.send(404, b'{"error":"Repository not found"}')

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Hub).serve_forever()
