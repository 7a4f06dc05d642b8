import type { Server } from 'node:http';
import type { Readable } from 'node:stream';

export declare const UPSTREAM_HEADER: string;
export declare function listen(server: Server): Promise<string>;
export declare function read(stream: Readable): Promise<Buffer>;
export default function setup(): Promise<void>;
export declare function teardown(): Promise<void>;
