/** The sandbox platforms: what the rest of the service may import from this folder. */
export { SandboxPlatforms, type SandboxOptions } from './sandbox-platforms.js';
export { parseSandboxFaults, type SandboxFaultConfig, type SandboxFaults } from './fault-config.js';
