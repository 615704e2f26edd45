package dev.waybill.outbox.rabbit.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free loopback port that forwards every connection to a target, with one thread
 * per direction per connection, so tests can break the network between a client and a broker:
 * <ul>
 * <li>{@link #cut()} closes every current connection and closes new ones at once, until
 * {@link #restore()};</li>
 * <li>{@link #pause()} stops forwarding in both directions without closing anything: bytes wait in
 * the proxy until {@link #restore()}, so the client sees a broker that does not answer.</li>
 * </ul>
 */
public final class TcpProxy implements AutoCloseable {

	private static final int BUFFER_SIZE = 16 * 1024;

	private final String targetHost;

	private final int targetPort;

	private final ServerSocket server;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private final AtomicInteger accepted = new AtomicInteger();

	private final Object gate = new Object();

	private volatile boolean cut;

	private volatile boolean paused;

	private volatile boolean closed;

	private TcpProxy(String targetHost, int targetPort) throws IOException {
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept-" + port());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Starts a proxy to a target.
	 * @param targetHost the host to forward to
	 * @param targetPort the port to forward to
	 * @return the running proxy
	 */
	public static TcpProxy start(String targetHost, int targetPort) {
		try {
			return new TcpProxy(targetHost, targetPort);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start a TCP proxy to " + targetHost + ":" + targetPort, ex);
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
	 * Returns how many connections the proxy has forwarded (not counting those closed while cut).
	 * @return the count
	 */
	public int connectionsForwarded() {
		return this.accepted.get();
	}

	/**
	 * Closes every current connection and every new one until {@link #restore()}.
	 */
	public void cut() {
		this.cut = true;
		closeSockets();
	}

	/**
	 * Stops forwarding in both directions without closing connections, until {@link #restore()}.
	 */
	public void pause() {
		this.paused = true;
	}

	/**
	 * Undoes {@link #cut()} and {@link #pause()}: new connections are forwarded again, and bytes held
	 * by a pause flow on.
	 */
	public void restore() {
		this.cut = false;
		synchronized (this.gate) {
			this.paused = false;
			this.gate.notifyAll();
		}
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		closeSockets();
		restore();
	}

	@Override
	public String toString() {
		return "TcpProxy[" + host() + ":" + port() + " -> " + this.targetHost + ":" + this.targetPort + "]";
	}

	private void acceptLoop() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				if (this.cut) {
					client.close();
					continue;
				}
				Socket target = new Socket();
				target.connect(new InetSocketAddress(this.targetHost, this.targetPort), 5000);
				this.sockets.add(client);
				this.sockets.add(target);
				if (this.cut) { // cut while connecting
					this.sockets.remove(client);
					this.sockets.remove(target);
					client.close();
					target.close();
					continue;
				}
				this.accepted.incrementAndGet();
				pump(client, target, "up");
				pump(target, client, "down");
			}
			catch (IOException ex) {
				// the server socket is closed, or the target refused: the client sees a closed connection
			}
		}
	}

	private void pump(Socket from, Socket to, String direction) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[BUFFER_SIZE];
			try (from; to) {
				InputStream in = from.getInputStream();
				OutputStream out = to.getOutputStream();
				int read;
				while ((read = in.read(buffer)) >= 0) {
					awaitNotPaused(from);
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// one side closed: both sockets close
			}
			finally {
				this.sockets.remove(from);
				this.sockets.remove(to);
			}
		}, "tcp-proxy-" + direction + "-" + port());
		thread.setDaemon(true);
		thread.start();
	}

	private void awaitNotPaused(Socket from) throws InterruptedException, IOException {
		synchronized (this.gate) {
			while (this.paused && !from.isClosed()) {
				this.gate.wait(50);
			}
		}
		if (from.isClosed()) {
			throw new IOException("closed while paused");
		}
	}

	private void closeSockets() {
		for (Socket socket : this.sockets) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
		}
		synchronized (this.gate) {
			this.gate.notifyAll();
		}
	}

}
