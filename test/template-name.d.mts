export declare function isMysqlUrl(databaseUrl: string | undefined): boolean;
export declare function testDatabasePrefix(database: string): string;
export declare function templateDatabase(databaseUrl: string | undefined, runFolder: string | undefined): string | null;
