package dev.waybill.outbox.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import dev.waybill.outbox.test.fixture.Clean;
import dev.waybill.outbox.test.fixture.Configuration;
import dev.waybill.outbox.test.fixture.Leaky;
import dev.waybill.outbox.test.fixture.internal.Hidden;

/**
 * The checks the modules' {@code ApiSurfaceTests} rely on, against fixture classes.
 */
class ApiSurfaceSelfTests {

	private final ApiSurface surface = ApiSurface.of("fixture",
			List.of(Clean.class, Leaky.class, Configuration.class, Hidden.class, notPublic()),
			Set.of(Configuration.class.getName()));

	@Test
	void apiTypesArePublicTypesOutsideInternalPackages() {
		assertThat(this.surface.apiTypes()).containsExactly(Clean.class.getName(), Configuration.class.getName(),
				Leaky.class.getName());
		assertThat(ApiSurface.isInternal(Hidden.class)).isTrue();
		assertThat(ApiSurface.isInternal(Hidden[].class)).isTrue();
		assertThat(ApiSurface.isInternal(Leaky.class)).isFalse();
		assertThat(ApiSurface.isInternal(int.class)).isFalse();
	}

	@Test
	void aPublicTypeMissingFromTheListIsNamedWithWhatToDo() {
		assertThat(this.surface.unreviewedApiTypes(Set.of(Clean.class.getName(), Configuration.class.getName()),
				"Tests.API"))
			.singleElement(InstanceOfAssertFactories.STRING)
			.startsWith(Leaky.class.getName() + " is public in an API package but not on the reviewed API list")
			.contains("move it to an 'internal' package")
			.contains("add it to Tests.API");
	}

	@Test
	void aListedTypeThatIsNoLongerApiIsNamed() {
		assertThat(this.surface.unreviewedApiTypes(Set.of(Clean.class.getName(), Configuration.class.getName(),
				Leaky.class.getName(), Hidden.class.getName()), "Tests.API"))
			.singleElement(InstanceOfAssertFactories.STRING)
			.startsWith(Hidden.class.getName() + " is on the reviewed API list in Tests.API")
			.contains("remove it from the list");
	}

	@Test
	void everyPublicSignatureMentioningAnInternalTypeIsFound() {
		String hidden = Hidden.class.getName();
		String leaky = Leaky.class.getName();
		assertThat(this.surface.internalTypesInApiSignatures()).containsOnlyKeys(leaky + "#<type>", leaky + "#<init>",
				leaky + "#get", leaky + "#many", leaky + "#hiddens", leaky + "$Nested#<init>", leaky + "$Nested#hidden")
			.allSatisfy((member, types) -> assertThat(types).containsExactly(hidden));
	}

	@Test
	void everyMemberMentioningAnInternalTypeIsAProblemNamedWithWhatToDo() {
		String leaky = Leaky.class.getName();
		assertThat(this.surface.internalTypesExposed()).hasSize(this.surface.internalTypesInApiSignatures().size())
			.anySatisfy((problem) -> assertThat(problem).startsWith(leaky + "#get is public API but its signature "
					+ "mentions internal [" + Hidden.class.getName() + "]").contains("make the member package-private"));
	}

	private static Class<?> notPublic() {
		try {
			return Class.forName("dev.waybill.outbox.test.fixture.NotPublic");
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
