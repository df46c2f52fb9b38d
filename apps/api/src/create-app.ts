import type { Server as HttpsServer } from 'node:https';
import { Logger, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { pathParametersPerPath } from './http/path-parameters';
import { AppModule } from './app.module';
import { authorize, declarePluginAccess } from './http/access';
import { TokenRegistry } from './infrastructure/token-registry';
import { TokenReviewer } from './infrastructure/token-reviewer';
import type { Config } from './config';
import { useJsonBodyParser } from './http/json-body';
import { answerOversizedBodiesOnceSent } from './http/oversized-body';
import { logRequests } from './http/access-log';
import { httpsOptions, reloadOnChange } from './http/https';
import { requestContext, resumeRequestContext } from './http/request-context';
import { requestDeadline } from './http/request-deadline';
import { measureRequests, Metrics } from './metrics/metrics';
import { AppLogger } from './infrastructure/app-logger';
import { LIMITS } from './http/limits';
import { refuseLongPathParams, refuseNulInUrl, refuseUnroutableUrl } from './http/url-limits';
import { validationPipe } from './http/validation.pipe';
import { serveUi } from './ui/serve-ui';
import { useSecurityHeaders } from './http/security-headers';
import { answerProblemsUnderExternalIpam } from './external-ipam/problem-details';

import { MAX_BODY_BYTES } from './http/error-mapping';

/** `logger: false` for tests and benchmarks that want quiet; by default the JSON (or text) AppLogger. */
export async function createApp(config: Config, options: { logger?: false | AppLogger } = {}): Promise<INestApplication> {
  const logger = options.logger ?? new AppLogger();
  const adapter = new FastifyAdapter({
    bodyLimit: MAX_BODY_BYTES,
    routerOptions: { maxParamLength: 16 * LIMITS.pathParam },
    // a client that sends its request slowly (slowloris) is cut off like a slow handler
    requestTimeout: config.requestTimeoutMs,
    frameworkErrors: refuseUnroutableUrl,
    ...(config.tls ? { https: httpsOptions(config.tls) } : {}),
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger,
    // the JSON parser is ours (json-body.ts): depth and NUL checks before anything else sees the body
    bodyParser: false,
  });
  useSecurityHeaders(app, config.tls !== null);
  const fastify = app.getHttpAdapter().getInstance();
  if (config.tls) {
    const tlsLogger = new Logger('tls');
    tlsLogger.log(`serving HTTPS${config.tls.clientCaFile ? ', client certificates required' : ''}`);
    const stop = reloadOnChange(app.getHttpServer() as HttpsServer, config.tls, tlsLogger);
    fastify.addHook('onClose', (_instance, done) => {
      stop();
      done();
    });
  }
  fastify.decorateRequest('context', null);
  fastify.addHook('onRequest', requestContext(requestDeadline(config.requestTimeoutMs)));
  fastify.addHook('onRequest', refuseNulInUrl);
  fastify.addHook('onRequest', authorize(app.get(TokenRegistry), app.get(TokenReviewer)));
  fastify.addHook('onRoute', declarePluginAccess);
  fastify.addHook('onSend', answerProblemsUnderExternalIpam);
  fastify.addHook('preValidation', resumeRequestContext);
  if (logger) logRequests(fastify, logger);
  measureRequests(fastify, app.get(Metrics));
  fastify.addHook('preValidation', refuseLongPathParams);
  useJsonBodyParser(fastify, MAX_BODY_BYTES);
  answerOversizedBodiesOnceSent(fastify, config.requestTimeoutMs);
  if (!(await serveUi(app))) new Logger('ipledger').warn('no web UI build found (npm run build): /ui is not served');
  app.useGlobalPipes(validationPipe);
  app.enableShutdownHooks();
  const document = pathParametersPerPath(
    SwaggerModule.createDocument(
      app,
      new DocumentBuilder()
        .setTitle('ipledger')
        .setDescription(
          'Event-sourced IP address management for Kubernetes. The contract is API.md; this document is generated from the code.',
        )
        .setVersion('v1')
        .addBearerAuth()
        .build(),
    ),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  return app;
}
