import { randomUUID } from 'node:crypto';

/**
 * Bedrock Runtime's errors as the service writes them: a JSON body `{"message": ...}`, the
 * exception named in `x-amzn-ErrorType` (`<Name>:http://internal.amazon.com/coral/...`).
 */
export interface AwsReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

const CORAL = {
  bedrock: 'http://internal.amazon.com/coral/com.amazon.bedrock/',
  auth: 'http://internal.amazon.com/coral/com.amazon.coral.service/',
} as const;

export function awsError(status: number, type: string, message: string): AwsReply {
  const namespace =
    type === 'InvalidSignatureException' ||
    type === 'UnrecognizedClientException' ||
    type === 'IncompleteSignatureException'
      ? CORAL.auth
      : CORAL.bedrock;
  return {
    status,
    headers: {
      'content-type': 'application/json',
      'x-amzn-errortype': `${type}:${namespace}`,
      'x-amzn-requestid': randomUUID(),
    },
    body: Buffer.from(JSON.stringify({ message })),
  };
}

export const validation = (message: string): AwsReply => awsError(400, 'ValidationException', message);

export const throttled = (): AwsReply =>
  awsError(429, 'ThrottlingException', 'Too many requests, please wait before trying again.');

export const signatureMismatch = (): AwsReply =>
  awsError(
    403,
    'InvalidSignatureException',
    'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
  );
