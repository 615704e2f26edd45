package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.Frame;
import com.rabbitmq.client.impl.FrameHandler;
import org.jspecify.annotations.Nullable;

/**
 * Hands the client each frame it reads, a content header frame with readable headers
 * ({@link ReadableHeaders}), and forwards every other call to the client's own frame handler.
 * It is a proxy of the client's {@link FrameHandler} rather than a class implementing it because
 * that interface differs between the client versions Waybill supports (5.30 has {@code flush()},
 * newer ones {@code flush(WriteListener)}, {@code startProcessing()} and {@code setFrameMax(int)}).
 */
final class ReadableHeadersFrameHandler implements InvocationHandler {

	private final FrameHandler delegate;

	private ReadableHeadersFrameHandler(FrameHandler delegate) {
		this.delegate = delegate;
	}

	/**
	 * Returns a frame handler that reads through {@code delegate} and makes headers readable.
	 * @param delegate the client's frame handler
	 * @return the guarded frame handler
	 */
	static FrameHandler around(FrameHandler delegate) {
		return (FrameHandler) Proxy.newProxyInstance(FrameHandler.class.getClassLoader(),
				new Class<?>[] { FrameHandler.class }, new ReadableHeadersFrameHandler(delegate));
	}

	@Override
	public @Nullable Object invoke(Object proxy, Method method, @Nullable Object @Nullable [] args) throws Throwable {
		if (method.getParameterCount() == 0 && method.getName().equals("readFrame")) {
			return readFrame();
		}
		if (method.getDeclaringClass() == Object.class) {
			return switch (method.getName()) {
				case "equals" -> args != null && proxy == args[0];
				case "hashCode" -> System.identityHashCode(proxy);
				default -> "readable headers over " + this.delegate;
			};
		}
		try {
			return method.invoke(this.delegate, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	private @Nullable Frame readFrame() throws IOException {
		Frame frame = this.delegate.readFrame();
		if (frame == null || FrameFields.type(frame) != AMQP.FRAME_HEADER) {
			return frame;
		}
		byte[] payload = frame.getPayload();
		byte[] readable = ReadableHeaders.of(payload);
		return (readable == payload) ? frame : new Frame(AMQP.FRAME_HEADER, FrameFields.channel(frame), readable);
	}

}
