package dev.apexmem.neo4j;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;
import org.neo4j.logging.Level;
import org.neo4j.logging.log4j.Log4jLogProvider;

/**
 * Neo4j Community, embedded, serving Bolt without authentication on a loopback address.
 *
 * <p>Usage: {@code Neo4jLauncher <neo4j-home> [host] [port]}. The DBMS keeps its databases and
 * transaction logs under {@code <neo4j-home>/data}. SIGTERM shuts it down cleanly through a
 * shutdown hook; the process then exits. The page cache is {@code -Dapexmem.pagecache.mb}
 * mebibytes (default 512).
 */
public final class Neo4jLauncher {
    static final String NAME = "apexmem-neo4j-launcher";
    static final long DEFAULT_PAGECACHE_MB = 512;

    private Neo4jLauncher() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1 || args.length > 3) {
            System.err.println("usage: " + NAME + " <neo4j-home> [host] [port]");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        String host = args.length > 1 ? args[1] : "127.0.0.1";
        int port = args.length > 2 ? Integer.parseInt(args[2]) : 7687;

        Log4jLogProvider userLog = new Log4jLogProvider(System.out, Level.INFO);
        DatabaseManagementService dbms;
        try {
            dbms = builder(home, host, port).setUserLogProvider(userLog).build();
        } catch (RuntimeException e) {
            System.err.println(NAME + " failed to start: " + e);
            e.printStackTrace();
            System.exit(1);
            return;
        }
        CountDownLatch hookDone = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println(NAME + " shutting down");
            dbms.shutdown();
            System.out.println(NAME + " stopped");
            System.out.flush();
            userLog.close();
            hookDone.countDown();
        }, NAME + "-shutdown"));
        System.out.println(NAME + " ready on bolt://" + host + ":" + port);
        System.out.flush();
        hookDone.await();
    }

    static DatabaseManagementServiceBuilder builder(Path home, String host, int port) {
        return new DatabaseManagementServiceBuilder(home)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(
                        GraphDatabaseSettings.pagecache_memory,
                        ByteUnit.mebiBytes(Long.getLong("apexmem.pagecache.mb", DEFAULT_PAGECACHE_MB)))
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "2 files")
                .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(32))
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                // LOAD CSV may not read the server's files: GraphQuery refuses LOAD CSV too,
                // this is the server's own wall behind it (and an empty import directory).
                .setConfig(GraphDatabaseSettings.allow_file_urls, false)
                .setConfig(GraphDatabaseSettings.load_csv_file_url_root, home.resolve("import-none"))
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false);
    }
}
