import sys, socket, subprocess, time, tempfile, os, urllib.request
d = tempfile.mkdtemp(); port = 18778
p = subprocess.Popen([(sys.argv[1] if len(sys.argv) > 1 else 'target/debug/sannin'), 'serve', '--addr', f'127.0.0.1:{port}', '--database-url', f'sqlite://{d}/m.db?mode=rwc', '--max-connections', '1100'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(2)
socks = []; t0 = time.time()
for i in range(1100):
    s = socket.socket(); s.bind(('127.0.0.2', 0)); s.connect(('127.0.0.1', port))
    s.sendall(b'POST /api/rooms HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n')
    socks.append(s)
time.sleep(0.5)
refused = 0
for s in socks:
    s.settimeout(0.01)
    try:
        if s.recv(20).startswith(b'HTTP/1.1 429'): refused += 1
    except Exception: pass
# Another address.
o = socket.socket(); o.bind(('127.0.0.3', 0)); o.settimeout(5); t1 = time.time(); o.connect(('127.0.0.1', port))
o.sendall(b'GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n'); other = o.recv(40).split(b'\r\n')[0]; dt = time.time() - t1
# The held ones time out.
time.sleep(10.5)
timed = 0
for s in socks:
    s.settimeout(0.05)
    try:
        if s.recv(20).startswith(b'HTTP/1.1 408'): timed += 1
    except Exception: pass
print(f"refused_at_once={refused} held={1100-refused} other_address={other.decode()} in {dt*1000:.1f} ms; held answered 408 after 10 s: {timed}")
p.kill()
