"""The REST client's bearer token: exchanged for the client credentials once for every thread (a refresh after a
401 is the one other exchange), or given (a caller's own token, or a token cache shared by many clients)."""
from __future__ import annotations

import json

from workload_diagnose.tools.base import ToolFailure
from workload_diagnose.tools.runai.errors import ApiAuthError, ApiUnavailable

__all__ = ["Token"]


class Token:
    """Token handling of the REST client (a mixin: the attributes are set by ``RunaiClient.__init__``)."""

    def _fetch_token(self) -> str:
        """client_credentials on /api/v1/token, falling back to the v2 OAuth2 form flow."""
        try:
            r = self._send_with_retries("POST", "/api/v1/token", json_body={
                "grantType": "client_credentials", "clientID": self._client_id,
                "clientSecret": self._client_secret})[0]
            if r.status_code in (404, 405, 501):
                r = self._send_with_retries("POST", "/api/v2/token", form={
                    "grant_type": "client_credentials", "client_id": self._client_id,
                    "client_secret": self._client_secret})[0]
        except ToolFailure as e:
            raise ApiUnavailable(f"cannot reach the Run:ai API at {self.base_url}: {e.message}") from e
        if r.status_code in (400, 401, 403):
            raise ApiAuthError(f"the Run:ai API at {self.base_url} refused the credentials (HTTP {r.status_code})")
        if r.status_code != 200:
            raise ApiUnavailable(f"the Run:ai token endpoint at {self.base_url} answered HTTP {r.status_code}")
        try:
            body = json.loads(r.content)
        except (ValueError, RecursionError) as e:
            raise ApiUnavailable("the Run:ai token endpoint returned a body that is not JSON") from e
        token = body.get("accessToken") or body.get("access_token") if isinstance(body, dict) else None
        if not token or not isinstance(token, str):
            # a 200 without a token is a broken endpoint, not a refusal of the credentials (exit 3, not 4)
            raise ApiUnavailable("the Run:ai token endpoint answered 200 without an access token")
        return token

    def _auth_header(self, refresh: bool = False) -> dict[str, str]:
        """The bearer token, exchanged ONCE for all threads (a refresh on 401 is the one other exchange); when the
        exchange failed, every later caller gets the same failure at once instead of trying again."""
        with self._token_lock:
            if self._bearer is not None:  # a given token: never the client credentials
                self._token = self._bearer(refresh) if callable(self._bearer) else self._bearer
                return {"Authorization": f"Bearer {self._token}"}
            if self._token_error is not None:  # a fresh exception per thread (one object raised twice would mix
                err = type(self._token_error)(str(self._token_error))  # their tracebacks), with the same cause
                raise err from self._token_error.__cause__
            if self._token is None or refresh:
                try:
                    self._token = self._fetch_token()
                except (ApiUnavailable, ApiAuthError) as e:
                    self._token_error = e
                    raise
            return {"Authorization": f"Bearer {self._token}"}

    def ensure_token(self, refresh: bool = False) -> str:
        """The bearer token reads send (exchanged for the client credentials once; again with ``refresh``)."""
        return self._auth_header(refresh)["Authorization"].removeprefix("Bearer ")


    def handoff(self) -> dict:
        """What a worker process needs to read with this client's token (fetched once, never again per process)."""
        return {"token": self.ensure_token()}

    def adopt(self, state: dict) -> None:
        """Take a :meth:`handoff` from the parent: the worker reads with the same token; a 401 still refreshes it."""
        with self._token_lock:
            self._token = state["token"]
