import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { CommandMetadata, NodeRestriction } from '@ipledger/domain';
import type { TokenGrant } from '../config';
import { Metadata, Restriction } from '../http/request-context';
import { callerCluster, Grant } from './caller-cluster';
import { AllocateDto, AllocatedIpsDto, DeregisterDto, RegisterDto, ReleaseDto } from './dto/okep-requests.dto';
import { NetworkPoolsDto, OkepStatusDto } from './dto/okep-status.dto';
import { ExternalIpamAdapter } from './external-ipam.adapter';
import { OkepBody } from './okep-body';
import { ExternalIpamRoute } from './problem-details';

/** OVN-Kubernetes' External IPAM contract (OKEP-6831), API.md "External IPAM contract": RPC-style JSON, errors as problem+json. */
@ApiTags('external-ipam')
@Controller('external-ipam/v1')
export class ExternalIpamController {
  constructor(private readonly adapter: ExternalIpamAdapter) {}

  @Post('register')
  @HttpCode(204)
  @ApiBody({ type: RegisterDto })
  @ApiNoContentResponse({ description: "the network's pools are made, or were already of these subnets" })
  @ExternalIpamRoute('allocator', 'Register a network: one pool a subnet (same subnets again: 204; others: 409)', 400, 409, 413)
  async register(
    @OkepBody(RegisterDto) body: RegisterDto,
    @Grant() grant: TokenGrant | null,
    @Metadata() metadata: CommandMetadata,
    @Restriction() restriction: NodeRestriction | null,
  ): Promise<void> {
    await this.adapter.register(body, callerCluster(grant, body.cluster), { metadata, restriction });
  }

  @Post('deregister')
  @HttpCode(204)
  @ApiBody({ type: DeregisterDto })
  @ApiNoContentResponse({ description: 'the cluster holds nothing on the network (also for an unknown network)' })
  @ExternalIpamRoute('allocator', 'Deregister a cluster from a network (409 while it holds addresses there)', 400, 409, 413)
  async deregister(
    @OkepBody(DeregisterDto) body: DeregisterDto,
    @Grant() grant: TokenGrant | null,
    @Metadata() metadata: CommandMetadata,
    @Restriction() restriction: NodeRestriction | null,
  ): Promise<void> {
    await this.adapter.deregister(body, callerCluster(grant, body.cluster), { metadata, restriction });
  }

  @Post('allocate')
  @HttpCode(200)
  @ApiBody({ type: AllocateDto })
  @ApiOkResponse({ type: AllocatedIpsDto, description: 'one address a family (the same ones for a retried call)' })
  @ExternalIpamRoute('allocator', 'Allocate addresses to a workload (idempotent on network, cluster, workload_id)', 400, 404, 409, 413)
  async allocate(
    @OkepBody(AllocateDto) body: AllocateDto,
    @Grant() grant: TokenGrant | null,
    @Metadata() metadata: CommandMetadata,
    @Restriction() restriction: NodeRestriction | null,
  ): Promise<AllocatedIpsDto> {
    return { ips: await this.adapter.allocate(body, callerCluster(grant, body.cluster), { metadata, restriction }) };
  }

  @Post('release')
  @HttpCode(204)
  @ApiBody({ type: ReleaseDto })
  @ApiNoContentResponse({ description: 'released, or nothing was held' })
  @ExternalIpamRoute('allocator', "Release a workload's addresses (idempotent)", 400, 413)
  async release(
    @OkepBody(ReleaseDto) body: ReleaseDto,
    @Grant() grant: TokenGrant | null,
    @Metadata() metadata: CommandMetadata,
    @Restriction() restriction: NodeRestriction | null,
  ): Promise<void> {
    await this.adapter.release(body, callerCluster(grant, body.cluster), { metadata, restriction });
  }

  @Get('status')
  @ApiExtraModels(NetworkPoolsDto)
  @ApiOkResponse({ type: OkepStatusDto, description: 'always 200: readiness is in `ready`' })
  @ExternalIpamRoute('reader', 'Versions, capabilities, networks and usage')
  status(): Promise<OkepStatusDto> {
    return this.adapter.status();
  }
}
