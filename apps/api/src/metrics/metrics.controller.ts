import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Metrics } from './metrics';
import { ApiPublicRoute } from '../http/api-route';

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOkResponse({ description: 'Prometheus text format' })
  @ApiPublicRoute('Prometheus metrics')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
