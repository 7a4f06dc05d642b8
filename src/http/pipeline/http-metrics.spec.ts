import { BULK_CHUNKS } from '../../common/logging/bulk-chunks.js';
import { HttpMetrics } from './http-metrics.js';

describe('HttpMetrics', () => {
  it('counts each request under its method, route and status, and times it by status class', async () => {
    const sut = new HttpMetrics();
    sut.observe('GET', '/v4/goals/:id', 200, 0.004);
    sut.observe('GET', '/v4/goals/:id', 200, 0.02);
    sut.observe('GET', '/v4/goals/:id', 404, 0.003);
    sut.observe('POST', undefined, 404, 0.001);
    const text = await sut.text();
    expect(text).toContain('http_requests_total{method="GET",route="/v4/goals/:id",status="200"} 2');
    expect(text).toContain('http_requests_total{method="GET",route="/v4/goals/:id",status="404"} 1');
    expect(text).toContain('http_requests_total{method="POST",route="unmatched",status="404"} 1');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.005",method="GET",route="/v4/goals/:id",status_class="2xx"} 1');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/v4/goals/:id",status_class="2xx"} 2');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/v4/goals/:id",status_class="4xx"} 1');
  });

  it('counts the items of each bulk chunk published and times its phases by resource, until it is destroyed', async () => {
    const sut = new HttpMetrics();
    try {
      BULK_CHUNKS.publish({ resource: 'Individual', items: 250, readsAhead: 0.018, run: 0.009, commit: 0.0145 });
      BULK_CHUNKS.publish({ resource: 'Individual', items: 10, readsAhead: 0.002, run: 0.0004, commit: 0.003 });
      BULK_CHUNKS.publish({ resource: 'Goal', items: 3, readsAhead: 0.0005, run: 0.001, commit: 0.002 });
      const text = await sut.text();
      expect(text).toContain('pms_bulk_items_total{resource="Individual"} 260');
      expect(text).toContain('pms_bulk_items_total{resource="Goal"} 3');
      expect(text).toContain('pms_bulk_chunk_phase_seconds_count{resource="Individual",phase="reads_ahead"} 2');
      expect(text).toContain('pms_bulk_chunk_phase_seconds_bucket{le="0.01",resource="Individual",phase="items"} 2');
      expect(text).toContain('pms_bulk_chunk_phase_seconds_bucket{le="0.01",resource="Individual",phase="commit"} 1');
      expect(text).toContain('pms_bulk_chunk_phase_seconds_sum{resource="Goal",phase="commit"} 0.002');
    } finally {
      sut.onModuleDestroy();
    }
    BULK_CHUNKS.publish({ resource: 'Goal', items: 5, readsAhead: 0, run: 0, commit: 0 });
    expect(await sut.text()).toContain('pms_bulk_items_total{resource="Goal"} 3');
  });
});
