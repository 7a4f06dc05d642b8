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
});
