package dev.waybill.outbox.rabbit.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TcpProxyTests {

	private ServerSocket echoServer;

	private TcpProxy proxy;

	@BeforeEach
	void startEchoServerAndProxy() throws IOException {
		this.echoServer = new ServerSocket(0);
		Thread acceptor = new Thread(this::echo, "echo-server");
		acceptor.setDaemon(true);
		acceptor.start();
		this.proxy = TcpProxy.start("127.0.0.1", this.echoServer.getLocalPort());
	}

	@AfterEach
	void stop() throws IOException {
		this.proxy.close();
		this.echoServer.close();
	}

	@Test
	void forwardsBothWays() throws IOException {
		try (Socket client = connect()) {
			assertThat(roundTrip(client, 'a')).isEqualTo('a');
			assertThat(roundTrip(client, 'b')).isEqualTo('b');
		}
		assertThat(this.proxy.connectionsForwarded()).isEqualTo(1);
	}

	@Test
	void cutClosesCurrentAndNewConnectionsUntilRestored() throws IOException {
		try (Socket before = connect()) {
			assertThat(roundTrip(before, 'a')).isEqualTo('a');

			this.proxy.cut();

			assertThat(readOrEnd(before)).isEqualTo(-1);
			try (Socket during = connect()) {
				assertThat(readOrEnd(during)).isEqualTo(-1);
			}
		}
		this.proxy.restore();
		try (Socket after = connect()) {
			assertThat(roundTrip(after, 'c')).isEqualTo('c');
		}
		assertThat(this.proxy.connectionsForwarded()).isEqualTo(2);
	}

	@Test
	void pauseHoldsBytesWithoutClosingUntilRestored() throws IOException {
		try (Socket client = connect()) {
			assertThat(roundTrip(client, 'a')).isEqualTo('a');
			this.proxy.pause();

			client.getOutputStream().write('b');
			client.setSoTimeout(300);
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> client.getInputStream().read());

			this.proxy.restore();
			client.setSoTimeout(10_000);
			assertThat(client.getInputStream().read()).isEqualTo('b');
		}
	}

	@Test
	void closeStopsAccepting() throws Exception {
		int port = this.proxy.port();
		this.proxy.close();
		// Counted after the close: the proxy's ephemeral port may be one an earlier test's recovering
		// client still dials, which this proxy accepted before it closed.
		Thread.sleep(100);
		int forwarded = this.proxy.connectionsForwarded();

		// Whether a connect succeeds says nothing about the proxy: its port is an ephemeral one, which
		// a client socket can get as its own source port and connect to itself (TCP simultaneous open),
		// and which another test's listener can take once it is free. So count what the proxy accepted.
		for (int i = 0; i < 3; i++) {
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
			}
			catch (IOException ex) {
				// refused: closed
			}
		}
		Thread.sleep(200); // an accept runs on the proxy's own thread
		assertThat(this.proxy.connectionsForwarded()).as("connections the closed proxy accepted").isEqualTo(forwarded);
	}

	private Socket connect() throws IOException {
		Socket socket = new Socket(this.proxy.host(), this.proxy.port());
		socket.setSoTimeout(10_000);
		return socket;
	}

	private static int roundTrip(Socket socket, char value) throws IOException {
		socket.getOutputStream().write(value);
		return socket.getInputStream().read();
	}

	private static int readOrEnd(Socket socket) {
		try {
			return socket.getInputStream().read();
		}
		catch (IOException ex) { // a reset is an end too
			return -1;
		}
	}

	private void echo() {
		while (!this.echoServer.isClosed()) {
			try {
				Socket socket = this.echoServer.accept();
				Thread thread = new Thread(() -> {
					try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
						in.transferTo(out);
					}
					catch (IOException ex) {
						// the client went away
					}
				}, "echo");
				thread.setDaemon(true);
				thread.start();
			}
			catch (IOException ex) {
				return;
			}
		}
	}

}
