import http.server, socketserver, sys, os
# serve.py DIR: serves DIR over HTTP on 127.0.0.1 (a free port, printed first) for run.sh.
os.chdir(sys.argv[1])
class H(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, '.wasm': 'application/wasm'}
    def log_message(self, *a): pass
with socketserver.TCPServer(("127.0.0.1", 0), H) as s:
    print(s.server_address[1], flush=True); s.serve_forever()
