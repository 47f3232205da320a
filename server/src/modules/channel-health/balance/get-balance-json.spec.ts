import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BalanceQueryFailedError } from './fetch-channel-balance';
import { getBalanceJson } from './get-balance-json';

describe('getBalanceJson', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/slow') return; // never answers: the deadline ends it
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"total_usage": 12}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers the status and the parsed body', async () => {
    expect(await getBalanceJson(2000)(`${base}/ok`, {})).toEqual({ status: 200, body: { total_usage: 12 } });
  });

  it('turns an unreachable upstream into a failed query, not an unhandled error', async () => {
    const refused = getBalanceJson(2000)('http://127.0.0.1:1/v1/dashboard/billing/usage', {});
    await expect(refused).rejects.toBeInstanceOf(BalanceQueryFailedError);
    await expect(refused).rejects.toThrow(/^request to the upstream failed: /);
  });

  it('turns a timeout into a failed query', async () => {
    await expect(getBalanceJson(200)(`${base}/slow`, {})).rejects.toBeInstanceOf(BalanceQueryFailedError);
  });
});
