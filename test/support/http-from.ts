import http from 'node:http';

/** An answer to getFrom: its status, its JSON body (null for an event stream, left open), and a way to close it. */
export interface AnswerFrom {
  status: number;
  /** The body parsed as JSON when it is not an event stream (read to its end); null otherwise. */
  body: any;
  close: () => void;
}

/**
 * A GET sent from a given local address (127.0.0.2 is another client of a registry on 127.0.0.1, with an address of
 * its own), with any headers — X-Forwarded-* included, which fetch cannot be trusted to send as given.
 */
export function getFrom(url: string, localAddress: string, headers: Record<string, string> = {}): Promise<AnswerFrom> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { localAddress, headers, agent: false }, (response) => {
      const close = () => request.destroy();
      if ((response.headers['content-type'] ?? '').startsWith('text/event-stream'))
        return resolve({ status: response.statusCode ?? 0, body: null, close });
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : null, close }));
    });
    request.on('error', reject);
  });
}
