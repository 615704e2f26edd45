package dev.waybill.inbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.outbox.MessageType;

/**
 * What a sender's type names can cost a {@link ConsumerRegistry}: type names are the sender's to
 * choose, so neither their number nor their shape may grow the registry or its work per delivery
 * without bound.
 */
class ConsumerRegistryTests {

	@Test
	void subtypeRegistrationsAreKeptForABoundedNumberOfTypeNames() {
		ConsumerRegistration<Returned> returns = ConsumerRegistration.of("returns", Returned.class, handler());
		ConsumerRegistry registry = ConsumerRegistry.of(List.of(returns));

		for (int i = 0; i < ConsumerRegistry.MAX_DERIVED + 500; i++) {
			ConsumerRegistration<?> chosen = registry.dispatch("returns", "sender.made.up" + i, "test.registry.returned");
			assertThat(chosen.messageType()).isEqualTo("sender.made.up" + i);
			assertThat(chosen.payloadClass()).isEqualTo(Returned.class);
		}

		assertThat(registry.derivedCount()).isEqualTo(ConsumerRegistry.MAX_DERIVED);
		assertThat(registry.dispatch("returns", "sender.made.up7", "test.registry.returned").messageType())
			.as("a kept one is still used").isEqualTo("sender.made.up7");
	}

	@Test
	void aTypeNameWithManyDotsCostsABoundedNumberOfClassLookups() throws Exception {
		CountingLoader loader = new CountingLoader(getClass().getClassLoader(), Returned.class.getName());
		Class<?> payload = loader.loadClass(Returned.class.getName());
		assertThat(payload.getClassLoader()).isSameAs(loader);
		@SuppressWarnings({ "unchecked", "rawtypes" })
		ConsumerRegistration<?> returns = ConsumerRegistration.of("returns", (Class) payload, handler());
		ConsumerRegistry registry = ConsumerRegistry.of(List.of(returns));
		String dotted = "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z".repeat(20);

		loader.lookups.set(0);
		registry.dispatch("returns", dotted, "test.registry.returned");

		assertThat(loader.lookups.get()).isLessThanOrEqualTo(ConsumerRegistry.MAX_NESTING + 1);
	}

	@Test
	void aNestedClassIsStillFoundByItsCanonicalName() {
		ConsumerRegistration<Parcel> parcels = ConsumerRegistration.of("parcels", Parcel.class, handler());
		ConsumerRegistry registry = ConsumerRegistry.of(List.of(parcels));

		ConsumerRegistration<?> chosen = registry.dispatch("parcels", Outer.Middle.Inner.class.getCanonicalName(),
				"test.registry.parcel");

		assertThat(chosen.payloadClass()).isEqualTo(Outer.Middle.Inner.class);
	}

	private static <T> MessageHandler<T> handler() {
		return (message, context) -> {
		};
	}

	@MessageType("test.registry.returned")
	public record Returned(String parcel) {
	}

	@MessageType("test.registry.parcel")
	interface Parcel {

	}

	static final class Outer {

		static final class Middle {

			record Inner(String parcel) implements Parcel {
			}

		}

	}

	/** Defines one class itself (so that it is that class's loader) and counts every other lookup. */
	private static final class CountingLoader extends ClassLoader {

		final AtomicInteger lookups = new AtomicInteger();

		private final String own;

		CountingLoader(ClassLoader parent, String own) {
			super(parent);
			this.own = own;
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (name.equals(this.own)) {
				synchronized (getClassLoadingLock(name)) {
					Class<?> loaded = findLoadedClass(name);
					return (loaded != null) ? loaded : define(name);
				}
			}
			this.lookups.incrementAndGet();
			return super.loadClass(name, resolve);
		}

		private Class<?> define(String name) throws ClassNotFoundException {
			try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
				if (in == null) {
					throw new ClassNotFoundException(name);
				}
				byte[] bytes = in.readAllBytes();
				return defineClass(name, bytes, 0, bytes.length);
			}
			catch (IOException ex) {
				throw new ClassNotFoundException(name, ex);
			}
		}

	}

}
