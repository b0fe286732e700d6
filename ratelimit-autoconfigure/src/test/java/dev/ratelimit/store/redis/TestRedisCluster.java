package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import redis.embedded.RedisServer;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * A real Redis Cluster of masters without replicas: embedded Redis servers started
 * with {@code cluster-enabled}, joined with {@code CLUSTER MEET}, the 16384 slots
 * split evenly with {@code CLUSTER ADDSLOTS}. A stopped master restarts on its port
 * with its node file, and rejoins as itself.
 */
final class TestRedisCluster implements AutoCloseable {

	static final int SLOTS = 16384;

	private static final Duration FORMED_WITHIN = Duration.ofSeconds(30);

	private final Path directory;

	private final List<Integer> ports = new ArrayList<>();

	private final List<RedisServer> servers = new ArrayList<>();

	private final List<RedisClient> adminClients = new ArrayList<>();

	private final List<StatefulRedisConnection<String, String>> adminConnections = new ArrayList<>();

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private TestRedisCluster(Path directory) {
		this.directory = directory;
	}

	/**
	 * A formed cluster of {@code masters} nodes, every slot served.
	 */
	static TestRedisCluster start(int masters) {
		TestRedisCluster cluster;
		try {
			cluster = new TestRedisCluster(Files.createTempDirectory("ratelimit-cluster"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		for (int i = 0; i < masters; i++) {
			cluster.startNode(freePort());
		}
		cluster.form();
		return cluster;
	}

	List<Integer> ports() {
		return List.copyOf(this.ports);
	}

	/**
	 * The index of the master that serves a slot.
	 */
	int masterOf(int slot) {
		return slot * this.ports.size() / SLOTS;
	}

	/**
	 * Plain commands on one node, for checking what it holds.
	 */
	RedisCommands<String, String> node(int index) {
		return this.adminConnections.get(index).sync();
	}

	/**
	 * A template on a cluster client of its own, which refreshes its view of the
	 * topology every second and on every sign of change.
	 */
	ReactiveStringRedisTemplate template() {
		List<String> nodes = this.ports.stream().map((port) -> "127.0.0.1:" + port).toList();
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(Duration.ofSeconds(1))
			.enableAllAdaptiveRefreshTriggers()
			.build();
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(nodes), client);
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		return new ReactiveStringRedisTemplate(factory);
	}

	void stop(int index) {
		try {
			this.servers.get(index).stop();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Starts a stopped master again and waits until the cluster serves every slot.
	 */
	void restart(int index) {
		try {
			this.servers.get(index).start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		awaitFormed();
	}

	void flushAll() {
		for (int i = 0; i < this.ports.size(); i++) {
			node(i).flushall();
		}
	}

	private void startNode(int port) {
		try {
			RedisServer server = RedisServer.newRedisServer()
				.port(port)
				.bind("127.0.0.1")
				.setting("cluster-enabled yes")
				.setting("cluster-config-file " + this.directory.resolve("nodes-" + port + ".conf"))
				.setting("cluster-node-timeout 1000")
				.setting("dir " + this.directory)
				.setting("save \"\"")
				.setting("appendonly no")
				.build();
			server.start();
			this.servers.add(server);
			this.ports.add(port);
			RedisClient client = RedisClient
				.create(RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(Duration.ofSeconds(2)).build());
			this.adminClients.add(client);
			this.adminConnections.add(client.connect());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void form() {
		for (int i = 1; i < this.ports.size(); i++) {
			node(0).clusterMeet("127.0.0.1", this.ports.get(i));
		}
		for (int i = 0; i < this.ports.size(); i++) {
			int from = i * SLOTS / this.ports.size();
			int to = (i + 1) * SLOTS / this.ports.size();
			node(i).clusterAddSlots(IntStream.range(from, to).toArray());
		}
		awaitFormed();
	}

	private void awaitFormed() {
		long deadline = System.nanoTime() + FORMED_WITHIN.toNanos();
		while (!formed()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("the cluster did not form within " + FORMED_WITHIN);
			}
			Pause.sleep(100);
		}
	}

	private boolean formed() {
		for (int i = 0; i < this.ports.size(); i++) {
			try {
				String info = node(i).clusterInfo();
				if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + this.ports.size())) {
					return false;
				}
			}
			catch (RuntimeException ex) {
				return false;
			}
		}
		return true;
	}

	@Override
	public void close() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
		this.adminConnections.forEach(StatefulRedisConnection::close);
		this.adminClients.forEach(RedisClient::shutdown);
		for (RedisServer server : this.servers) {
			try {
				if (server.isActive()) {
					server.stop();
				}
			}
			catch (IOException ex) {
				// Stopping the others anyway.
			}
		}
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			// A temporary directory: the system cleans it up.
		}
	}

	/**
	 * A port free for the node and for its cluster bus, 10000 above it.
	 */
	private static int freePort() {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port = 20_000 + ThreadLocalRandom.current().nextInt(35_000);
			try (ServerSocket node = new ServerSocket(port); ServerSocket bus = new ServerSocket(port + 10_000)) {
				return port;
			}
			catch (IOException ex) {
				// Taken: try another.
			}
		}
		throw new IllegalStateException("no free pair of ports for a cluster node");
	}

}
