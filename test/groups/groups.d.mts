export declare const SLOW_SPECS: string[];
export declare const SQLITE_ONLY_SPECS: string[];
export declare const ON_MYSQL: boolean;
export declare const LEFT_OUT_SPECS: string[];
export declare function e2eSpecs(): string[];
export declare function standaloneSpecs(): string[];
export declare function groupFiles(): string[];
export declare function specsOfGroup(groupFile: string): string[];
