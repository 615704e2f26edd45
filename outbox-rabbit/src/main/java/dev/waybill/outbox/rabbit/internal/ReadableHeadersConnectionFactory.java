package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.InetAddress;
import java.net.SocketException;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.WriteListener;
import com.rabbitmq.client.impl.AMQConnection;
import com.rabbitmq.client.impl.Frame;
import com.rabbitmq.client.impl.FrameHandler;
import com.rabbitmq.client.impl.FrameHandlerFactory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A connection factory whose connections pass every content header frame through
 * {@link ReadableHeaders} before the client reads it, so that a message with headers the client
 * cannot read reaches the inbox (which sends it to the error queue) instead of dropping the
 * connection each time the broker delivers it. Frames are read this way by the client's default,
 * blocking I/O; with NIO or Netty enabled by a customizer, frames do not pass here and such a
 * message still drops the connection.
 */
final class ReadableHeadersConnectionFactory extends ConnectionFactory {

	private static final Log logger = LogFactory.getLog(ReadableHeadersConnectionFactory.class);

	private ReadableHeadersConnectionFactory() {
	}

	/**
	 * Returns a copy of {@code source}, as {@link ConnectionFactory#clone()} makes one (every field
	 * copied, shallow), whose connections make headers readable; the clone itself when the copy
	 * cannot be made.
	 * @param source the configured factory
	 * @return the copy
	 */
	static ConnectionFactory copyOf(ConnectionFactory source) {
		ReadableHeadersConnectionFactory copy = new ReadableHeadersConnectionFactory();
		try {
			for (Field field : ConnectionFactory.class.getDeclaredFields()) {
				if (!Modifier.isStatic(field.getModifiers())) {
					field.setAccessible(true);
					field.set(copy, field.get(source));
				}
			}
			return copy;
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			logger.warn("Waybill could not guard its consuming connections against messages with headers the RabbitMQ "
					+ "client cannot read (" + ex + "); such a message will drop the connection each time it is delivered");
			return source.clone();
		}
	}

	@Override
	protected synchronized FrameHandlerFactory createFrameHandlerFactory() throws IOException {
		FrameHandlerFactory factory = super.createFrameHandlerFactory();
		return (address, connectionName) -> new ReadableHeadersFrameHandler(factory.create(address, connectionName));
	}

	/** Hands the client each frame it reads, a content header frame with readable headers. */
	private static final class ReadableHeadersFrameHandler implements FrameHandler {

		private final FrameHandler delegate;

		ReadableHeadersFrameHandler(FrameHandler delegate) {
			this.delegate = delegate;
		}

		@Override
		public Frame readFrame() throws IOException {
			Frame frame = this.delegate.readFrame();
			if (frame == null || frame.getType() != AMQP.FRAME_HEADER) {
				return frame;
			}
			byte[] payload = frame.getPayload();
			byte[] readable = ReadableHeaders.of(payload);
			return (readable == payload) ? frame : new Frame(frame.getType(), frame.getChannel(), readable);
		}

		@Override
		public boolean internalHearbeat() {
			return this.delegate.internalHearbeat();
		}

		@Override
		public void setTimeout(int timeoutMs) throws SocketException {
			this.delegate.setTimeout(timeoutMs);
		}

		@Override
		public int getTimeout() throws SocketException {
			return this.delegate.getTimeout();
		}

		@Override
		public void sendHeader() throws IOException {
			this.delegate.sendHeader();
		}

		@Override
		public void initialize(AMQConnection connection) {
			this.delegate.initialize(connection);
		}

		@Override
		public void startProcessing() {
			this.delegate.startProcessing();
		}

		@Override
		public void finishConnectionNegotiation() {
			this.delegate.finishConnectionNegotiation();
		}

		@Override
		public void setFrameMax(int value) {
			this.delegate.setFrameMax(value);
		}

		@Override
		public void writeFrame(Frame frame) throws IOException {
			this.delegate.writeFrame(frame);
		}

		@Override
		public void flush(WriteListener listener) throws IOException {
			this.delegate.flush(listener);
		}

		@Override
		public void close() {
			this.delegate.close();
		}

		@Override
		public InetAddress getLocalAddress() {
			return this.delegate.getLocalAddress();
		}

		@Override
		public int getLocalPort() {
			return this.delegate.getLocalPort();
		}

		@Override
		public InetAddress getAddress() {
			return this.delegate.getAddress();
		}

		@Override
		public int getPort() {
			return this.delegate.getPort();
		}

	}

}
