import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express, { type NextFunction, type Request, type Response } from 'express';
import { AppModule } from './app.module';
import type { Config } from './config';
import { errorBody } from './http/error-response';
import { requestContext } from './http/request-context';
import { validationPipe } from './http/validation.pipe';

export const MAX_BODY = '1mb';

/** Body-parser failures happen before Nest routes the request, so they get the API's error shape here. */
function bodyErrors(err: { status?: number; type?: string; message?: string }, _req: Request, res: Response, next: NextFunction) {
  if (!err?.type) return next(err);
  const tooLarge = err.type === 'entity.too.large';
  const status = tooLarge ? 413 : (err.status ?? 400);
  const message = tooLarge ? `request body is larger than ${MAX_BODY}` : `request body is not valid JSON: ${err.message}`;
  res.status(status).json(errorBody(status, tooLarge ? 'PAYLOAD_TOO_LARGE' : 'INVALID_ARGUMENT', message));
}

export async function createApp(config: Config, options: { logger?: false } = {}): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.forRoot(config), { bodyParser: false, ...options });
  // no ETag hashing of every JSON body, no framework banner
  app.getHttpAdapter().getInstance().set('etag', false).disable('x-powered-by');
  app.use(requestContext);
  app.use(express.json({ limit: MAX_BODY }));
  app.use(bodyErrors);
  app.useGlobalPipes(validationPipe);
  app.enableShutdownHooks();
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('ipledger')
      .setDescription(
        'Event-sourced IP address management for Kubernetes. The contract is API.md; this document is generated from the code.',
      )
      .setVersion('v1')
      .addBearerAuth()
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  return app;
}
