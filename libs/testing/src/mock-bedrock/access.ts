import { awsError, type AwsReply } from './errors.js';

/** The IAM actions of the operations the mock serves (InvokeModel also authorizes Converse). */
export type BedrockAction =
  'bedrock:InvokeModel' | 'bedrock:InvokeModelWithResponseStream' | 'bedrock:ListFoundationModels';

/** The account and identity of the mock's key pairs and API keys, as IAM names them. */
export const MOCK_AWS_ACCOUNT = '123456789012';
export const MOCK_AWS_PRINCIPAL = `arn:aws:iam::${MOCK_AWS_ACCOUNT}:user/model-gateway`;

/** The action a runtime operation needs: Converse is authorized by InvokeModel, its stream by the stream's. */
export function actionOf(operation: string): BedrockAction {
  return operation.endsWith('stream') ? 'bedrock:InvokeModelWithResponseStream' : 'bedrock:InvokeModel';
}

/** Cross-region inference profiles' prefixes (`us.`, `global.`...): their ID names a profile, not a model. */
const PROFILE = /^(us|eu|apac|us-gov|jp|au|ca|global)\./;

/** The resource a model ID names in an ARN: an ARN as given, an inference profile, or a foundation model. */
export function modelResource(modelId: string, region: string): string {
  if (modelId.startsWith('arn:')) return modelId;
  if (PROFILE.test(modelId))
    return `arn:aws:bedrock:${region}:${MOCK_AWS_ACCOUNT}:inference-profile/${modelId}`;
  return `arn:aws:bedrock:${region}::foundation-model/${modelId}`;
}

/**
 * IAM's 403 for an action no policy of the identity allows, in its words; `resource` null for an
 * action without resource-level permissions (ListFoundationModels), which IAM then does not name.
 */
export function accessDenied(action: BedrockAction, resource: string | null): AwsReply {
  const on = resource === null ? '' : ` on resource: ${resource}`;
  return awsError(
    403,
    'AccessDeniedException',
    `User: ${MOCK_AWS_PRINCIPAL} is not authorized to perform: ${action}${on} because no identity-based policy allows the ${action} action`,
  );
}
