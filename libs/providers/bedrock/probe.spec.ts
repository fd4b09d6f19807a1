import { describe, expect, it } from '@jest/globals';
import { bedrockControlPlaneUrl, bedrockProbeUrl } from './probe.js';

describe("bedrock probe: ListFoundationModels on the region's control plane", () => {
  it("lists foundation models on the control plane of AWS's runtime host (public, FIPS, China, dual-stack)", () => {
    expect(bedrockProbeUrl({ base_url: 'https://bedrock-runtime.eu-central-1.amazonaws.com' })).toBe(
      'https://bedrock.eu-central-1.amazonaws.com/foundation-models',
    );
    expect(bedrockControlPlaneUrl({ base_url: 'https://bedrock-runtime-fips.us-east-1.amazonaws.com' })).toBe(
      'https://bedrock-fips.us-east-1.amazonaws.com',
    );
    expect(bedrockControlPlaneUrl({ base_url: 'https://bedrock-runtime.cn-north-1.amazonaws.com.cn' })).toBe(
      'https://bedrock.cn-north-1.amazonaws.com.cn',
    );
    expect(bedrockControlPlaneUrl({ base_url: 'https://bedrock-runtime.us-west-2.api.aws' })).toBe(
      'https://bedrock.us-west-2.api.aws',
    );
  });

  it('takes control_plane_url as set (a VPC endpoint of the control plane), whatever base_url is', () => {
    const vpce = {
      base_url: 'https://vpce-0a1b2c3d4e5f-abcdefgh.bedrock-runtime.eu-central-1.vpce.amazonaws.com',
      control_plane_url: 'https://vpce-0f9e8d7c6b5a-hgfedcba.bedrock.eu-central-1.vpce.amazonaws.com',
    };
    expect(bedrockProbeUrl(vpce)).toBe(
      'https://vpce-0f9e8d7c6b5a-hgfedcba.bedrock.eu-central-1.vpce.amazonaws.com/foundation-models',
    );
  });

  it('probes base_url itself when no AWS host name gives the control plane (a VPC endpoint, a proxy)', () => {
    const vpce = 'https://vpce-0a1b2c3d4e5f-abcdefgh.bedrock-runtime.eu-central-1.vpce.amazonaws.com';
    expect(bedrockControlPlaneUrl({ base_url: vpce })).toBe(vpce);
    expect(bedrockProbeUrl({ base_url: 'http://127.0.0.1:4566' })).toBe(
      'http://127.0.0.1:4566/foundation-models',
    );
    // A host of another domain that happens to start the same way is not AWS's.
    expect(bedrockControlPlaneUrl({ base_url: 'https://bedrock-runtime.eu-central-1.corp.example' })).toBe(
      'https://bedrock-runtime.eu-central-1.corp.example',
    );
  });
});
