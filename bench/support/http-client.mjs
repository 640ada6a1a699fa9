// A lean keep-alive HTTP/1.1 client for load loops. On these 2-core machines undici's fetch costs
// ~0.9 ms of client CPU per request, stolen from the service under test; node:http with a
// keep-alive agent costs ~0.25 ms. Use fetch for one-off calls, this for closed loops.
import http from 'node:http';

export function httpClient(baseUrl, maxSockets = 64) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const { hostname, port } = new URL(baseUrl);
  /**
   * Sends a JSON request; resolves with { status, headers, body } (body parsed when JSON).
   * `options.timeoutMs`: reject (and drop the socket) when no complete answer came in time.
   */
  function request(method, path, body, headers = {}, options = {}) {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        {
          host: hostname,
          port,
          path,
          method,
          agent,
          headers:
            payload === undefined
              ? headers
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            const json = (res.headers['content-type'] ?? '').includes('json');
            let parsed = text;
            try {
              parsed = json && text ? JSON.parse(text) : text;
            } catch {
              // A truncated or malformed body: hand back the text rather than throw inside the stream's handler.
            }
            resolve({ status: res.statusCode, headers: res.headers, body: parsed });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (options.timeoutMs !== undefined) {
        const timer = setTimeout(() => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
        req.on('close', () => clearTimeout(timer));
      }
      req.end(payload);
    });
  }
  return { request, close: () => agent.destroy() };
}
