package dev.waybill.outbox.test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A TCP proxy on a free loopback port that reads the protocol it forwards (PostgreSQL's frontend/
 * backend protocol v3, or AMQP 0-9-1 frames) and loses an acknowledgement at a chosen moment, so that
 * tests can reproduce, deterministically, the cases where one side acted and the other never heard:
 * <ul>
 * <li>{@link #loseCommitReply(Predicate, Fault)} (PostgreSQL): the client's {@code COMMIT} of a
 * transaction whose statements match reaches the server and the server commits; its answer is not
 * relayed;</li>
 * <li>{@link #loseReply(Predicate, Fault)} (PostgreSQL): the same for one statement, e.g. an
 * auto-commit {@code UPDATE};</li>
 * <li>{@link #loseBrokerAck(Fault)} (AMQP): the broker's next {@code basic.ack} (a publisher
 * confirm) is not relayed to the client, although the broker took the message;</li>
 * <li>{@link #loseClientAck(Fault)} (AMQP): the client's next {@code basic.ack} of a delivery is not
 * relayed to the broker, although the client sent it.</li>
 * </ul>
 * With {@link Fault#CUT} the connection is closed at that moment, both sides; with
 * {@link Fault#STALL} the connection stays open and nothing more is relayed on it (a peer that went
 * silent, a network that drops packets) until {@link #close()}. Each arming fires once. SSL is not
 * read: use {@code sslmode=disable} (a server that accepts SSL leaves the connection unread and no
 * fault fires on it).
 */
public final class WireFaultProxy implements AutoCloseable {

	/** What the proxy does to the connection when the armed moment comes. */
	public enum Fault {

		/** Close the connection, both sides, without relaying the message. */
		CUT,

		/** Relay nothing more on the connection, in either direction, and keep it open. */
		STALL

	}

	private enum Protocol {

		POSTGRES, AMQP

	}

	private static final int AMQP_METHOD_FRAME = 1;

	private static final int BASIC_CLASS = 60;

	private static final int BASIC_ACK = 80;

	private static final int SSL_REQUEST = 80877103;

	private static final int GSSENC_REQUEST = 80877104;

	private static final int PROTOCOL_3 = 196608;

	private final Protocol protocol;

	private final String targetHost;

	private final int targetPort;

	private final ServerSocket server;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private final AtomicReference<Armed> commitReply = new AtomicReference<>();

	private final AtomicReference<Armed> statementReply = new AtomicReference<>();

	private final AtomicReference<Fault> brokerAck = new AtomicReference<>();

	private final AtomicReference<Fault> clientAck = new AtomicReference<>();

	private final AtomicInteger fired = new AtomicInteger();

	private final CountDownLatch closing = new CountDownLatch(1);

	private volatile boolean closed;

	private WireFaultProxy(Protocol protocol, String targetHost, int targetPort) throws IOException {
		this.protocol = protocol;
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::acceptLoop, "wire-fault-proxy-accept-" + port());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Starts a proxy to a PostgreSQL server.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the running proxy
	 */
	public static WireFaultProxy postgres(String host, int port) {
		return start(Protocol.POSTGRES, host, port);
	}

	/**
	 * Starts a proxy to the PostgreSQL the tests run against ({@link TestPostgres}).
	 * @return the running proxy
	 */
	public static WireFaultProxy postgres() {
		java.net.URI database = testDatabase();
		return postgres(database.getHost(), database.getPort());
	}

	/**
	 * Returns the JDBC URL of the tests' database through this PostgreSQL proxy: without TLS, which
	 * the proxy cannot read, and with a 3 s socket timeout, so that a stalled connection is a lost
	 * one rather than a hang (as the README advises).
	 * @return the URL
	 */
	public String jdbcUrl() {
		java.net.URI database = testDatabase();
		return "jdbc:postgresql://" + host() + ":" + port() + database.getRawPath() + "?sslmode=disable&socketTimeout=3"
				+ ((database.getRawQuery() != null) ? "&" + database.getRawQuery() : "");
	}

	/**
	 * Opens a connection pool to the tests' database through this PostgreSQL proxy
	 * ({@link #jdbcUrl()}), quick to give up on a lost connection; the caller closes it.
	 * @return the pool
	 */
	public com.zaxxer.hikari.HikariDataSource pool() {
		com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource();
		pool.setJdbcUrl(jdbcUrl());
		pool.setUsername(TestPostgres.get().user());
		pool.setPassword(TestPostgres.get().password());
		pool.setConnectionTimeout(2000);
		pool.setValidationTimeout(1000);
		return pool;
	}

	private static java.net.URI testDatabase() {
		return java.net.URI.create(TestPostgres.get().url().substring("jdbc:".length()));
	}

	/**
	 * Starts a proxy to an AMQP 0-9-1 broker.
	 * @param host the broker's host
	 * @param port the broker's port
	 * @return the running proxy
	 */
	public static WireFaultProxy amqp(String host, int port) {
		return start(Protocol.AMQP, host, port);
	}

	private static WireFaultProxy start(Protocol protocol, String host, int port) {
		try {
			return new WireFaultProxy(protocol, host, port);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start a proxy to " + host + ":" + port, ex);
		}
	}

	/**
	 * Returns the host clients connect to.
	 * @return {@code 127.0.0.1}
	 */
	public String host() {
		return this.server.getInetAddress().getHostAddress();
	}

	/**
	 * Returns the port clients connect to.
	 * @return the port
	 */
	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Returns how many armed faults have fired.
	 * @return the count
	 */
	public int fired() {
		return this.fired.get();
	}

	/**
	 * Arms the loss of one commit's reply (PostgreSQL): the next {@code COMMIT} of a transaction in
	 * which a statement matching {@code statement} ran is relayed to the server, and its answer, up to
	 * and including the {@code ReadyForQuery} that says it committed, is not relayed.
	 * @param statement matches the SQL text of one of the transaction's statements
	 * @param fault what happens to the connection then
	 */
	public void loseCommitReply(Predicate<String> statement, Fault fault) {
		requireProtocol(Protocol.POSTGRES);
		this.commitReply.set(new Armed(statement, fault));
	}

	/**
	 * Arms the loss of one statement's reply (PostgreSQL): the next statement matching
	 * {@code statement} is relayed to the server, and its whole answer, up to and including the
	 * {@code ReadyForQuery} that follows it, is not relayed. An auto-commit statement is committed by
	 * then; one inside a transaction block is rolled back with its connection. The SQL text is the
	 * driver's: pgjdbc sends {@code $1, $2, ...} for the {@code ?} placeholders.
	 * @param statement matches the statement's SQL text
	 * @param fault what happens to the connection then
	 */
	public void loseReply(Predicate<String> statement, Fault fault) {
		requireProtocol(Protocol.POSTGRES);
		this.statementReply.set(new Armed(statement, fault));
	}

	/**
	 * Arms the loss of the broker's next {@code basic.ack} (a publisher confirm) on any connection.
	 * @param fault what happens to the connection then
	 */
	public void loseBrokerAck(Fault fault) {
		requireProtocol(Protocol.AMQP);
		this.brokerAck.set(fault);
	}

	/**
	 * Arms the loss of the client's next {@code basic.ack} (of a delivery) on any connection: the broker
	 * never gets it.
	 * @param fault what happens to the connection then
	 */
	public void loseClientAck(Fault fault) {
		requireProtocol(Protocol.AMQP);
		this.clientAck.set(fault);
	}

	@Override
	public void close() {
		this.closed = true;
		this.closing.countDown();
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
	}

	@Override
	public String toString() {
		return "WireFaultProxy[" + this.protocol + " " + host() + ":" + port() + " -> " + this.targetHost + ":"
				+ this.targetPort + "]";
	}

	private void requireProtocol(Protocol expected) {
		if (this.protocol != expected) {
			throw new IllegalStateException(this + " does not speak " + expected);
		}
	}

	private void acceptLoop() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				Socket target = new Socket();
				// Without it each small protocol message waits for the peer's delayed ACK (Nagle):
				// ~40 ms a round trip, a schema migration through the proxy took 10 s.
				client.setTcpNoDelay(true);
				target.setTcpNoDelay(true);
				target.connect(new InetSocketAddress(this.targetHost, this.targetPort), 5000);
				Link link = new Link(client, target);
				this.sockets.add(client);
				this.sockets.add(target);
				thread(link::upstream, "up");
				thread(link::downstream, "down");
			}
			catch (IOException ex) {
				// the server socket is closed, or the target refused: the client sees a closed connection
			}
		}
	}

	private void thread(IoAction action, String direction) {
		Thread thread = new Thread(() -> {
			try {
				action.run();
			}
			catch (IOException ex) {
				// one side closed
			}
		}, "wire-fault-proxy-" + direction + "-" + port());
		thread.setDaemon(true);
		thread.start();
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

	private interface IoAction {

		void run() throws IOException;

	}

	private record Armed(Predicate<String> statement, Fault fault) {
	}

	/** One proxied connection: its two sockets and what each direction learnt of the other. */
	private final class Link {

		private final Socket client;

		private final Socket target;

		/** PostgreSQL: one-byte answers (to SSL/GSS requests) the server owes. */
		private final AtomicInteger rawBytesOwed = new AtomicInteger();

		/** PostgreSQL: named prepared statements, by name. */
		private final Map<String, String> statements = new HashMap<>();

		/** PostgreSQL: the statements of the current transaction. */
		private final List<String> transaction = new ArrayList<>();

		/** PostgreSQL: a statement or COMMIT whose reply is to be lost was relayed. */
		private volatile Fault replyFault;

		private volatile boolean opaque;

		/** Relays nothing more: a fault stalled the connection. */
		private volatile boolean stalled;

		Link(Socket client, Socket target) {
			this.client = client;
			this.target = target;
		}

		void upstream() throws IOException {
			try (this.client; this.target) {
				DataInputStream in = new DataInputStream(this.client.getInputStream());
				OutputStream out = this.target.getOutputStream();
				if (WireFaultProxy.this.protocol == Protocol.POSTGRES) {
					postgresUpstream(in, out);
				}
				else {
					amqpUpstream(in, out);
				}
			}
			finally {
				forget();
			}
		}

		void downstream() throws IOException {
			try (this.client; this.target) {
				DataInputStream in = new DataInputStream(this.target.getInputStream());
				OutputStream out = this.client.getOutputStream();
				if (WireFaultProxy.this.protocol == Protocol.POSTGRES) {
					postgresDownstream(in, out);
				}
				else {
					amqpDownstream(in, out);
				}
			}
			finally {
				forget();
			}
		}

		private void postgresUpstream(DataInputStream in, OutputStream out) throws IOException {
			while (true) { // untyped start-up messages
				int length = in.readInt();
				byte[] body = new byte[length - 4];
				in.readFully(body);
				int code = ((body[0] & 0xff) << 24) | ((body[1] & 0xff) << 16) | ((body[2] & 0xff) << 8)
						| (body[3] & 0xff);
				if (code == SSL_REQUEST || code == GSSENC_REQUEST) {
					this.rawBytesOwed.incrementAndGet();
				}
				write(out, int32(length), body);
				if (code == PROTOCOL_3) {
					break;
				}
				if (code != SSL_REQUEST && code != GSSENC_REQUEST) {
					raw(in, out); // a cancel request
					return;
				}
			}
			while (true) {
				if (this.opaque) {
					raw(in, out);
					return;
				}
				int type = in.readUnsignedByte();
				int length = in.readInt();
				byte[] body = new byte[length - 4];
				in.readFully(body);
				String sql = statementOf(type, body);
				if (sql != null) {
					String command = sql.strip().toUpperCase(Locale.ROOT);
					if (command.startsWith("COMMIT")) {
						Armed armed = WireFaultProxy.this.commitReply.get();
						synchronized (this.transaction) {
							if (armed != null && this.transaction.stream().anyMatch(armed.statement())
									&& WireFaultProxy.this.commitReply.compareAndSet(armed, null)) {
								this.replyFault = armed.fault();
							}
							this.transaction.clear();
						}
					}
					else if (command.startsWith("BEGIN") || command.startsWith("ROLLBACK")) {
						synchronized (this.transaction) {
							this.transaction.clear();
						}
					}
					else {
						synchronized (this.transaction) {
							this.transaction.add(sql);
						}
						Armed armed = WireFaultProxy.this.statementReply.get();
						if (armed != null && armed.statement().test(sql)
								&& WireFaultProxy.this.statementReply.compareAndSet(armed, null)) {
							this.replyFault = armed.fault();
						}
					}
				}
				write(out, new byte[] { (byte) type }, int32(length), body);
			}
		}

		/** The SQL a message runs: a simple query, a Parse, or a Bind of a named statement. */
		private String statementOf(int type, byte[] body) {
			if (type == 'Q') {
				return cstring(body, 0);
			}
			if (type == 'P') {
				String name = cstring(body, 0);
				String sql = cstring(body, name.getBytes(StandardCharsets.UTF_8).length + 1);
				if (!name.isEmpty()) {
					this.statements.put(name, sql);
					return null; // runs when bound
				}
				return sql;
			}
			if (type == 'B') {
				String portal = cstring(body, 0);
				String name = cstring(body, portal.getBytes(StandardCharsets.UTF_8).length + 1);
				return name.isEmpty() ? null : this.statements.get(name);
			}
			return null;
		}

		private void postgresDownstream(DataInputStream in, OutputStream out) throws IOException {
			while (true) {
				if (this.rawBytesOwed.get() > 0) {
					int answer = in.readUnsignedByte();
					this.rawBytesOwed.decrementAndGet();
					if (answer == 'S' || answer == 'G') {
						this.opaque = true;
						out.write(answer);
						out.flush();
						raw(in, out);
						return;
					}
					out.write(answer);
					out.flush();
					continue;
				}
				int type = in.readUnsignedByte();
				int length = in.readInt();
				byte[] body = new byte[length - 4];
				in.readFully(body);
				Fault fault = this.replyFault;
				if (fault != null && type == 'Z') {
					// ReadyForQuery: the server finished the statement and, outside a transaction block or
					// after a COMMIT, committed it. Nothing of its answer reaches the client.
					this.replyFault = null;
					fire(fault);
					return;
				}
				if (fault != null) {
					continue; // held back with the rest of the answer
				}
				write(out, new byte[] { (byte) type }, int32(length), body);
			}
		}

		private void amqpUpstream(DataInputStream in, OutputStream out) throws IOException {
			byte[] header = new byte[8];
			in.readFully(header);
			write(out, header);
			while (true) {
				byte[][] frame = frame(in);
				if (isBasicAck(frame)) {
					Fault fault = WireFaultProxy.this.clientAck.getAndSet(null);
					if (fault != null) {
						fire(fault);
						return;
					}
				}
				write(out, frame);
			}
		}

		private void amqpDownstream(DataInputStream in, OutputStream out) throws IOException {
			while (true) {
				byte[][] frame = frame(in);
				if (isBasicAck(frame)) {
					Fault fault = WireFaultProxy.this.brokerAck.getAndSet(null);
					if (fault != null) {
						fire(fault);
						return;
					}
				}
				write(out, frame);
			}
		}

		/** Reads one AMQP frame: its 7-byte header, then its payload and frame-end octet. */
		private byte[][] frame(DataInputStream in) throws IOException {
			byte[] header = new byte[7];
			in.readFully(header);
			int size = ((header[3] & 0xff) << 24) | ((header[4] & 0xff) << 16) | ((header[5] & 0xff) << 8)
					| (header[6] & 0xff);
			byte[] rest = new byte[size + 1];
			in.readFully(rest);
			return new byte[][] { header, rest };
		}

		private boolean isBasicAck(byte[][] frame) {
			byte[] payload = frame[1];
			return frame[0][0] == AMQP_METHOD_FRAME && payload.length >= 5
					&& (((payload[0] & 0xff) << 8) | (payload[1] & 0xff)) == BASIC_CLASS
					&& (((payload[2] & 0xff) << 8) | (payload[3] & 0xff)) == BASIC_ACK;
		}

		/** Closes the connection now, or holds it open and silent until the proxy closes. */
		private void fire(Fault fault) throws IOException {
			WireFaultProxy.this.fired.incrementAndGet();
			if (fault == Fault.STALL) {
				this.stalled = true;
				// The other direction keeps reading (so the peer's writes do not block) but relays nothing.
				try {
					WireFaultProxy.this.closing.await(1, TimeUnit.HOURS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			closeQuietly(this.client);
			closeQuietly(this.target);
		}

		private void raw(DataInputStream in, OutputStream out) throws IOException {
			byte[] buffer = new byte[16 * 1024];
			int read;
			while ((read = in.read(buffer)) >= 0) {
				write(out, Arrays.copyOf(buffer, read));
			}
		}

		private void write(OutputStream out, byte[]... parts) throws IOException {
			if (this.stalled) {
				return; // a stalled connection relays nothing
			}
			for (byte[] part : parts) {
				out.write(part);
			}
			out.flush();
		}

		private void forget() {
			WireFaultProxy.this.sockets.remove(this.client);
			WireFaultProxy.this.sockets.remove(this.target);
		}

	}

	private static byte[] int32(int value) {
		return new byte[] { (byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value };
	}

	private static String cstring(byte[] body, int from) {
		int end = from;
		while (end < body.length && body[end] != 0) {
			end++;
		}
		return new String(body, from, end - from, StandardCharsets.UTF_8);
	}

}
