import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';

/** Blockscout's limit by client IP (API_RATE_LIMIT_BY_IP and its interval, API_RATE_LIMIT_WHITELISTED_IPS). */
export interface RateLimitOptions {
  /** Requests one client IP may send per interval. */
  max: number;
  intervalMs: number;
  /** Client IPs the limit does not apply to. */
  allowList: readonly string[];
}

/**
 * Counts every request, unknown routes too, by the connecting IP. Beyond the limit: a 429 with
 * Retry-After and x-ratelimit-* headers, whose JSON body the error handler writes from the plugin's error.
 */
export async function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  await app.register(rateLimit, { max: options.max, timeWindow: options.intervalMs, allowList: [...options.allowList] });
}
