// The HTTP under acme-client. Its axios instance has no timeout, so a CA that
// stops answering would hold an order (and the certificate lane) for good; and
// its retry interceptor, given an error without a response (a timeout, a
// refused connection), retries a refused connection five times 5 to 25 s
// apart and then fails with a TypeError that names nothing. Here such errors
// leave the adapter as plain errors, which the interceptor passes on as they
// are: the order fails at once, saying what happened, and a later check tries
// again within the hourly limits.
import axios, { type AxiosInstance } from 'axios';

export function boundAcmeRequests(instance: AxiosInstance, timeoutMs: number): void {
  const http = axios.getAdapter('http');
  instance.defaults.timeout = timeoutMs;
  instance.defaults.adapter = async (config) => {
    try {
      return await http(config);
    } catch (err) {
      // An answer, whatever its status, goes on to acme-client's own handling.
      if (!axios.isAxiosError(err) || err.response) throw err;
      throw new Error(`${(config.method ?? 'get').toUpperCase()} ${config.url ?? ''}: ${err.message}`);
    }
  };
}
