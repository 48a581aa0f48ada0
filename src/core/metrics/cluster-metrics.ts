import cluster from 'node:cluster';
import { AggregatorRegistry, Registry } from 'prom-client';

const REQUEST = 'sr:cluster-metrics-request';
const RESPONSE = 'sr:cluster-metrics-response';
const TIMEOUT_MS = 5000;

interface MetricsMessage {
  type?: string;
  id?: number;
  text?: string;
  error?: string;
}

/**
 * Several API processes share one port (`npm start` with API_PROCESSES > 1, node:cluster), so a
 * scrape of `/metrics` reaches whichever process took the connection. Each API process lends its
 * registry to prom-client's cluster aggregation and asks the supervising process (which holds the
 * port) for the sum over all of them; a single process just reads its own registry.
 */
export function metricsSource(registry: Registry): () => Promise<string> {
  if (!cluster.isWorker) return () => registry.metrics();
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry(); // answers the primary's collection requests from this process
  let next = 0;
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => finish(new Error('the supervising process did not answer')), TIMEOUT_MS);
      const onMessage = (message: MetricsMessage) => {
        if (message?.type === RESPONSE && message.id === id) {
          finish(message.error ? new Error(message.error) : undefined, message.text);
        }
      };
      const finish = (error?: Error, text?: string) => {
        clearTimeout(timer);
        process.off('message', onMessage);
        if (error) reject(error);
        else resolve(text ?? '');
      };
      process.on('message', onMessage);
      process.send?.({ type: REQUEST, id });
    });
}

/** In the supervising process: answers API processes' requests with the metrics of all of them. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: MetricsMessage) => {
    if (message?.type !== REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: RESPONSE, id: message.id, text }),
      (error: Error) => worker.send({ type: RESPONSE, id: message.id, error: error.message }),
    );
  });
}
