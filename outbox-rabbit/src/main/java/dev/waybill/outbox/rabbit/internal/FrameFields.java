package dev.waybill.outbox.rabbit.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import com.rabbitmq.client.impl.Frame;
import org.jspecify.annotations.Nullable;

/**
 * Reads a frame's type and channel on every RabbitMQ Java client Waybill supports: newer clients
 * have {@code getType()} and {@code getChannel()}, older ones (such as the 5.30 that Spring Boot's
 * dependency management pins) the public fields {@code type} and {@code channel}. Which one the
 * client on the class path has is looked up once.
 */
final class FrameFields {

	private static final @Nullable MethodHandle TYPE = accessor("getType", "type");

	private static final @Nullable MethodHandle CHANNEL = accessor("getChannel", "channel");

	private FrameFields() {
	}

	/**
	 * Fails when the client's frames have neither form; {@link #type} and {@link #channel} may be
	 * called only after this passed.
	 * @throws IllegalStateException naming what the client lacks
	 */
	static void require() {
		if (TYPE == null || CHANNEL == null) {
			throw new IllegalStateException("the RabbitMQ client's Frame has neither getType() and getChannel() "
					+ "nor the fields type and channel");
		}
	}

	static int type(Frame frame) {
		return read(TYPE, frame);
	}

	static int channel(Frame frame) {
		return read(CHANNEL, frame);
	}

	private static int read(@Nullable MethodHandle accessor, Frame frame) {
		try {
			return (int) accessor.invokeExact(frame);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			// Neither a getter nor a field read throws a checked exception.
			throw new IllegalStateException(ex);
		}
	}

	private static @Nullable MethodHandle accessor(String method, String field) {
		MethodHandles.Lookup lookup = MethodHandles.publicLookup();
		try {
			return lookup.findVirtual(Frame.class, method, MethodType.methodType(int.class));
		}
		catch (NoSuchMethodException | IllegalAccessException noMethod) {
			try {
				return lookup.findGetter(Frame.class, field, int.class);
			}
			catch (NoSuchFieldException | IllegalAccessException noField) {
				return null;
			}
		}
	}

}
