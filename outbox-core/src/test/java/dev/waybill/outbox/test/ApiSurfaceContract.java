package dev.waybill.outbox.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The two checks every module's {@code ApiSurfaceTests} makes: each public type outside the
 * internal packages is on the module's reviewed API list, and no API signature mentions an
 * internal type. A module's test extends this and names its list; failures say what to change.
 */
public abstract class ApiSurfaceContract {

	private final Class<?> moduleAnchor;

	private final Set<String> api;

	/**
	 * Names the module and its reviewed list.
	 * @param moduleAnchor any main class of the module, which locates its compiled classes
	 * @param api every public type outside the internal packages, each there because a user needs it
	 */
	protected ApiSurfaceContract(Class<?> moduleAnchor, Set<String> api) {
		this.moduleAnchor = moduleAnchor;
		this.api = api;
	}

	@Test
	public void everyPublicTypeOutsideInternalPackagesIsReviewedApi() {
		assertThat(ApiSurface.ofModuleOf(this.moduleAnchor).unreviewedApiTypes(this.api, getClass().getName() + ".API"))
			.isEmpty();
	}

	@Test
	public void apiSignaturesDoNotMentionInternalTypes() {
		assertThat(ApiSurface.ofModuleOf(this.moduleAnchor).internalTypesExposed()).isEmpty();
	}

}
